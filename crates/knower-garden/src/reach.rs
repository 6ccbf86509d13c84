//! Which addresses the gardener may reach. URLs come from feeds, search
//! results and redirects, so from strangers: a link to
//! `http://127.0.0.1:8000/api/raw?path=profile.md` would have Knower read
//! the user's own server and file the answer as a "source". Loopback,
//! private, link-local, unique-local and other non-public addresses are
//! refused at every hop — a URL's literal address before the request and
//! at each redirect, a name's addresses after DNS resolution (so a name that
//! resolves to 127.0.0.1 is refused too) — except the `host:port` pairs the
//! user allows by name (`[garden] allow_private_hosts`) and the search
//! provider the user configured.

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

/// The `host:port` pairs allowed although they are not public.
#[derive(Clone, Debug, Default)]
pub struct Reach {
    allowed: Arc<BTreeSet<(String, u16)>>,
}

impl Reach {
    /// From `host:port` entries (`127.0.0.1:8765`, `localhost:8888`,
    /// `[::1]:8080`); an entry without a port is refused with a sentence.
    pub fn new<'a>(entries: impl IntoIterator<Item = &'a str>) -> Result<Reach, String> {
        let mut allowed = BTreeSet::new();
        for entry in entries {
            allowed.insert(host_port(entry)?);
        }
        Ok(Reach {
            allowed: Arc::new(allowed),
        })
    }

    /// Adds the host and port of a URL the user configured themselves (the
    /// search provider's).
    pub fn with_url(self, url: &str) -> Reach {
        let Ok(parsed) = reqwest::Url::parse(url) else {
            return self;
        };
        let (Some(host), Some(port)) = (parsed.host_str(), parsed.port_or_known_default()) else {
            return self;
        };
        let mut allowed = (*self.allowed).clone();
        allowed.insert((bare(host), port));
        Reach {
            allowed: Arc::new(allowed),
        }
    }

    /// Whether a request may go to `url`: a refusal says why. A literal
    /// address is judged here; a name is judged again on its addresses
    /// once resolved ([`Reach::resolver`]).
    pub fn check(&self, url: &reqwest::Url) -> Result<(), String> {
        let host = url.host_str().map(bare).unwrap_or_default();
        let port = url.port_or_known_default().unwrap_or(0);
        if self.allowed.contains(&(host.clone(), port)) {
            return Ok(());
        }
        let named_elsewhere = self.allowed.iter().any(|(h, _)| *h == host);
        match host.parse::<IpAddr>() {
            Ok(ip) if !is_public(ip) => Err(format!(
                "{host}:{port} is a {} address; the gardener reaches only the public web \
                 (allow it with [garden] allow_private_hosts = [\"{host}:{port}\"])",
                kind(ip)
            )),
            // A name allowed on another port: that port was not allowed.
            _ if named_elsewhere => Err(format!(
                "{host}:{port} is not among [garden] allow_private_hosts (only other ports of {host} are)"
            )),
            _ if host == "localhost" || host.ends_with(".localhost") => Err(format!(
                "{host}:{port} is this machine; the gardener reaches only the public web \
                 (allow it with [garden] allow_private_hosts = [\"{host}:{port}\"])"
            )),
            _ => Ok(()),
        }
    }

    /// A DNS resolver that drops a name's non-public addresses (unless the
    /// name is allowed by the user), and fails when none is left.
    pub fn resolver(&self) -> Resolver {
        Resolver {
            reach: self.clone(),
        }
    }
}

/// The gardener's DNS: the system's resolver, then [`Reach`]'s rule.
pub struct Resolver {
    reach: Reach,
}

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = bare(name.as_str());
        let allowed = self.reach.allowed.iter().any(|(h, _)| *h == host);
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if allowed {
                return Ok(Box::new(found.into_iter()) as reqwest::dns::Addrs);
            }
            let public: Vec<SocketAddr> = found
                .iter()
                .copied()
                .filter(|a| is_public(a.ip()))
                .collect();
            if public.is_empty() {
                let what = found
                    .first()
                    .map(|a| format!("a {} address ({})", kind(a.ip()), a.ip()))
                    .unwrap_or_else(|| "no address".into());
                return Err(format!(
                    "{host} resolves to {what}; the gardener reaches only the public web \
                     (allow it with [garden] allow_private_hosts = [\"{host}:PORT\"])"
                )
                .into());
            }
            Ok(Box::new(public.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

fn host_port(entry: &str) -> Result<(String, u16), String> {
    let entry = entry.trim();
    let refuse = || {
        format!(
            "[garden] allow_private_hosts: {entry:?} is not HOST:PORT (say 127.0.0.1:8765 or [::1]:8080)"
        )
    };
    let (host, port) = entry.rsplit_once(':').ok_or_else(refuse)?;
    let port: u16 = port.parse().map_err(|_| refuse())?;
    if host.is_empty() || (host.contains(':') && !host.starts_with('[')) {
        return Err(refuse());
    }
    Ok((bare(host), port))
}

/// A host as compared: lower case, IPv6 without its brackets.
fn bare(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// Whether an address is on the public internet.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        // Shared address space (carrier-grade NAT), 100.64.0.0/10.
        || (a == 100 && (64..128).contains(&b))
        // Benchmarking, 198.18.0.0/15; reserved, 240.0.0.0/4.
        || (a == 198 && (b == 18 || b == 19))
        || a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        // Unique local fc00::/7, link-local fe80::/10, documentation 2001:db8::/32.
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || (first == 0x2001 && ip.segments()[1] == 0x0db8)
        // IPv4-compatible (deprecated) ::a.b.c.d reaches IPv4 space.
        || ip.to_ipv4().is_some_and(|v4| !is_public_v4(v4)))
}

fn kind(ip: IpAddr) -> &'static str {
    match ip {
        IpAddr::V4(v4) if v4.is_loopback() => "loopback",
        IpAddr::V6(v6) if v6.is_loopback() => "loopback",
        IpAddr::V4(v4) if v4.is_private() => "private",
        IpAddr::V4(v4) if v4.is_link_local() => "link-local",
        IpAddr::V6(v6) if (v6.segments()[0] & 0xfe00) == 0xfc00 => "unique-local",
        IpAddr::V6(v6) if (v6.segments()[0] & 0xffc0) == 0xfe80 => "link-local",
        IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some() => "non-public (IPv4-mapped)",
        _ => "non-public",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> reqwest::Url {
        reqwest::Url::parse(text).unwrap()
    }

    #[test]
    fn non_public_addresses_are_refused_unless_allowed_by_host_and_port() {
        let reach = Reach::new(["127.0.0.1:8765", "[::1]:9000"]).unwrap();
        for refused in [
            "http://127.0.0.1:8000/api/raw?path=profile.md",
            "http://127.1.2.3/",
            "http://10.0.0.1/",
            "http://192.168.1.1:8080/",
            "http://172.16.0.9/",
            "http://169.254.169.254/latest/meta-data/",
            "http://100.64.0.1/",
            "http://0.0.0.0:8000/",
            "http://[::1]:8000/",
            "http://[fd00::1]/",
            "http://[fe80::1]/",
            "http://[::ffff:127.0.0.1]:8000/",
            "http://localhost:8000/",
            "http://app.localhost/",
        ] {
            assert!(reach.check(&url(refused)).is_err(), "{refused}");
        }
        for allowed in [
            "http://127.0.0.1:8765/feed.xml",
            "http://[::1]:9000/",
            "https://example.org/",
            "http://93.184.216.34/",
        ] {
            assert!(reach.check(&url(allowed)).is_ok(), "{allowed}");
        }
        let said = reach.check(&url("http://127.0.0.1:8000/")).unwrap_err();
        assert!(
            said.contains("loopback") && said.contains("allow_private_hosts"),
            "{said}"
        );
    }

    #[test]
    fn an_allowed_name_is_allowed_on_its_port_only() {
        let reach = Reach::new(["localhost:8765"]).unwrap();
        assert!(reach.check(&url("http://localhost:8765/")).is_ok());
        assert!(reach.check(&url("http://LOCALHOST:8765/")).is_ok());
        assert!(reach.check(&url("http://localhost:22/")).is_err());
    }

    #[test]
    fn entries_without_a_port_are_refused_with_a_sentence() {
        let said = Reach::new(["127.0.0.1"]).unwrap_err();
        assert!(said.contains("HOST:PORT"), "{said}");
        assert!(Reach::new(["::1:80"]).is_err());
    }

    #[test]
    fn the_configured_provider_is_reachable() {
        let reach = Reach::default().with_url("http://127.0.0.1:8888/search");
        assert!(
            reach
                .check(&url("http://127.0.0.1:8888/search?q=x"))
                .is_ok()
        );
        assert!(reach.check(&url("http://127.0.0.1:8000/")).is_err());
    }

    #[tokio::test]
    async fn a_name_resolving_to_loopback_is_refused_after_resolution() {
        use reqwest::dns::Resolve;
        let name: reqwest::dns::Name = "localhost".parse().unwrap();
        let refused = Reach::default().resolver().resolve(name).await;
        let said = refused.err().expect("refused").to_string();
        assert!(said.contains("loopback"), "{said}");
        let name: reqwest::dns::Name = "localhost".parse().unwrap();
        let allowed = Reach::new(["localhost:1"])
            .unwrap()
            .resolver()
            .resolve(name)
            .await;
        assert!(allowed.is_ok());
    }
}
