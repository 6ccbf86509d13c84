//! Which model Knower talks to: the `[llm]` section of the vault's
//! `knower.toml`, overridden by the environment.
//!
//! ```toml
//! [llm]
//! provider = "ollama"          # see Provider; "off" for the offline engine
//! model = "qwen2.5:7b"
//! base_url = "http://gpu-box:11434/v1/"   # default: the provider's
//! api_key_env = "MY_KEY_VAR"   # default: the provider's usual variable
//! timeout_secs = 120         # default: 120 hosted, 600 local
//! max_retries = 3             # default: 3 hosted, 1 local (never after a timeout)
//! max_output_tokens = 4096    # default: 4096 hosted, 1024 local
//! ```
//!
//! A local server (Ollama, llama.cpp, vLLM, LM Studio, or any base URL on
//! this machine or the local network) generates on the machine's own
//! CPU or GPU: its answers are slower and its generation goes on after a
//! client gives up, so its defaults differ (see [`LlmConfig::local`]).
//!
//! `KNOWER_LLM=provider:model` (or `off`), `KNOWER_LLM_BASE_URL` and
//! `KNOWER_LLM_API_KEY` override the file.

use std::fmt;
use std::time::Duration;

use serde::Deserialize;

use crate::error::{LlmError, Result};

/// The two wire protocols every supported provider speaks one of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `POST {base}chat/completions`, bearer key.
    OpenAiChat,
    /// `POST {base}messages`, `x-api-key` and `anthropic-version`.
    AnthropicMessages,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    OpenAi,
    OpenRouter,
    Ollama,
    LlamaCpp,
    Vllm,
    LmStudio,
    /// Any other OpenAI-compatible server; needs a base URL.
    OpenAiCompatible,
    Anthropic,
}

/// (name accepted in config, provider, default base URL, usual key variable)
const PROVIDERS: [(&str, Provider, Option<&str>, Option<&str>); 8] = [
    (
        "openai",
        Provider::OpenAi,
        Some("https://api.openai.com/v1/"),
        Some("OPENAI_API_KEY"),
    ),
    (
        "openrouter",
        Provider::OpenRouter,
        Some("https://openrouter.ai/api/v1/"),
        Some("OPENROUTER_API_KEY"),
    ),
    (
        "ollama",
        Provider::Ollama,
        Some("http://localhost:11434/v1/"),
        None,
    ),
    (
        "llamacpp",
        Provider::LlamaCpp,
        Some("http://localhost:8080/v1/"),
        None,
    ),
    (
        "vllm",
        Provider::Vllm,
        Some("http://localhost:8000/v1/"),
        None,
    ),
    (
        "lmstudio",
        Provider::LmStudio,
        Some("http://localhost:1234/v1/"),
        None,
    ),
    ("openai-compatible", Provider::OpenAiCompatible, None, None),
    (
        "anthropic",
        Provider::Anthropic,
        Some("https://api.anthropic.com/v1/"),
        Some("ANTHROPIC_API_KEY"),
    ),
];

impl Provider {
    pub fn parse(name: &str) -> Result<Provider> {
        let wanted = name.trim().to_ascii_lowercase().replace(['_', '.'], "");
        PROVIDERS
            .iter()
            .find(|(n, ..)| n.replace('-', "") == wanted.replace('-', ""))
            .map(|(_, p, ..)| *p)
            .ok_or_else(|| {
                let names: Vec<&str> = PROVIDERS.iter().map(|(n, ..)| *n).collect();
                LlmError::Config(format!(
                    "unknown provider `{name}` (known: {}, or `off`)",
                    names.join(", ")
                ))
            })
    }

    fn row(
        self,
    ) -> &'static (
        &'static str,
        Provider,
        Option<&'static str>,
        Option<&'static str>,
    ) {
        PROVIDERS
            .iter()
            .find(|row| row.1 == self)
            .expect("every provider has a row")
    }

    pub fn name(self) -> &'static str {
        self.row().0
    }

    pub fn protocol(self) -> Protocol {
        match self {
            Provider::Anthropic => Protocol::AnthropicMessages,
            _ => Protocol::OpenAiChat,
        }
    }

    /// A server people run themselves.
    pub fn is_local(self) -> bool {
        matches!(
            self,
            Provider::Ollama | Provider::LlamaCpp | Provider::Vllm | Provider::LmStudio
        )
    }

    pub fn default_base_url(self) -> Option<&'static str> {
        self.row().2
    }

    /// The variable that usually holds this provider's key; local servers
    /// have none and need no key.
    pub fn key_env(self) -> Option<&'static str> {
        self.row().3
    }
}

/// Everything needed to reach one model.
#[derive(Clone)]
pub struct LlmConfig {
    pub provider: Provider,
    pub model: String,
    /// Ends with `/`; the protocol's path is appended.
    pub base_url: String,
    pub api_key: Option<String>,
    /// For one request, retries not included.
    pub timeout: Duration,
    /// Extra attempts after a 429, a 5xx, a timeout or a dropped connection.
    pub max_retries: u32,
    pub max_output_tokens: u32,
    /// The model runs on a server of the user's own (on this machine or
    /// the local network), not a hosted API: a timeout is not retried (the
    /// server is still generating), the defaults give it longer and ask it
    /// for less, and the agents use the forms small models manage.
    pub local: bool,
}

impl fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmConfig")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("local", &self.local)
            .finish()
    }
}

/// Defaults for a hosted API: it answers fast, and a retry after a
/// timeout or a 5xx often succeeds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
pub const DEFAULT_MAX_RETRIES: u32 = 3;
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 4096;
/// Defaults for a local server: a CPU reads a long prompt for minutes
/// before its first token, and a small cap keeps a rambling small model
/// from generating for as long.
pub const LOCAL_TIMEOUT: Duration = Duration::from_secs(600);
pub const LOCAL_MAX_RETRIES: u32 = 1;
pub const LOCAL_MAX_OUTPUT_TOKENS: u32 = 1024;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Section {
    provider: Option<String>,
    model: Option<String>,
    base_url: Option<String>,
    api_key_env: Option<String>,
    timeout_secs: Option<f64>,
    max_retries: Option<u32>,
    max_output_tokens: Option<u32>,
}

#[derive(Deserialize, Default)]
struct File {
    #[serde(default)]
    llm: Section,
}

impl LlmConfig {
    /// The configuration from `knower.toml`'s text and the process
    /// environment; `None` when no LLM is configured (or it is turned `off`).
    pub fn load(toml_text: &str) -> Result<Option<LlmConfig>> {
        LlmConfig::resolve(toml_text, &|name| {
            std::env::var(name).ok().filter(|v| !v.trim().is_empty())
        })
    }

    /// [`LlmConfig::load`] with the environment given as a function.
    pub fn resolve(
        toml_text: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<LlmConfig>> {
        let file: File = toml::from_str(toml_text)
            .map_err(|e| LlmError::Config(format!("knower.toml: {}", e.message())))?;
        let section = file.llm;
        let (provider, model) = match env("KNOWER_LLM") {
            Some(spec) => match spec.trim().split_once(':') {
                _ if is_off(&spec) => return Ok(None),
                // Model names may hold colons themselves (`llama3.2:3b`).
                Some((provider, model)) => (provider.to_string(), Some(model.to_string())),
                None => (spec, section.model.clone()),
            },
            None => match &section.provider {
                None => return Ok(None),
                Some(p) if is_off(p) => return Ok(None),
                Some(p) => (p.clone(), section.model.clone()),
            },
        };
        let provider = Provider::parse(&provider)?;
        let model = model
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty())
            .ok_or_else(|| {
                LlmError::Config(format!(
                    "no model given for {} (KNOWER_LLM={}:MODEL, or `model` in [llm])",
                    provider.name(),
                    provider.name()
                ))
            })?;
        let base_url = env("KNOWER_LLM_BASE_URL")
            .or(section.base_url)
            .or(provider.default_base_url().map(str::to_string))
            .ok_or_else(|| {
                LlmError::Config(format!(
                    "{} needs a base URL (KNOWER_LLM_BASE_URL, or `base_url` in [llm])",
                    provider.name()
                ))
            })?;
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(LlmError::Config(format!(
                "base URL `{base_url}` is not an http(s) URL"
            )));
        }
        let base_url = if base_url.ends_with('/') {
            base_url
        } else {
            format!("{base_url}/")
        };
        let key_env = section.api_key_env.as_deref().or(provider.key_env());
        let api_key = env("KNOWER_LLM_API_KEY").or_else(|| key_env.and_then(env));
        if api_key.is_none()
            && let Some(var) = key_env
            && provider.key_env().is_some()
        {
            return Err(LlmError::Config(format!(
                "{} needs an API key: set {var} (or KNOWER_LLM_API_KEY)",
                provider.name()
            )));
        }
        let local = provider.is_local() || is_local_url(&base_url);
        let (timeout, retries, output) = if local {
            (LOCAL_TIMEOUT, LOCAL_MAX_RETRIES, LOCAL_MAX_OUTPUT_TOKENS)
        } else {
            (
                DEFAULT_TIMEOUT,
                DEFAULT_MAX_RETRIES,
                DEFAULT_MAX_OUTPUT_TOKENS,
            )
        };
        let timeout = match section.timeout_secs {
            Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s),
            Some(s) => {
                return Err(LlmError::Config(format!(
                    "timeout_secs must be positive, not {s}"
                )));
            }
            None => timeout,
        };
        Ok(Some(LlmConfig {
            provider,
            model,
            base_url,
            api_key,
            timeout,
            max_retries: section.max_retries.unwrap_or(retries),
            max_output_tokens: section.max_output_tokens.unwrap_or(output),
            local,
        }))
    }

    /// `provider:model`, as people write it in `KNOWER_LLM`.
    pub fn label(&self) -> String {
        format!("{}:{}", self.provider.name(), self.model)
    }
}

/// Whether a base URL is on this machine or a private network.
fn is_local_url(url: &str) -> bool {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = rest.split('/').next().unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority
            .rsplit_once(':')
            .map(|(h, _)| h)
            .unwrap_or(authority),
    };
    if host.eq_ignore_ascii_case("localhost") || host.ends_with(".local") {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        Ok(std::net::IpAddr::V6(ip)) => ip.is_loopback() || ip.is_unique_local(),
        Err(_) => false,
    }
}

fn is_off(spec: &str) -> bool {
    matches!(
        spec.trim().to_ascii_lowercase().as_str(),
        "off" | "none" | "offline"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn nothing_configured_is_offline() {
        assert!(LlmConfig::resolve("", &env(&[])).unwrap().is_none());
        let off = env(&[("KNOWER_LLM", "off")]);
        let file = "[llm]\nprovider = \"ollama\"\nmodel = \"m\"\n";
        assert!(LlmConfig::resolve(file, &off).unwrap().is_none());
    }

    #[test]
    fn environment_overrides_the_file_and_keeps_colons_in_model_names() {
        let file = "[llm]\nprovider = \"openai\"\nmodel = \"gpt-4o\"\n";
        let vars = [("KNOWER_LLM", "ollama:llama3.2:3b")];
        let c = LlmConfig::resolve(file, &env(&vars)).unwrap().unwrap();
        assert_eq!(c.provider, Provider::Ollama);
        assert_eq!(c.model, "llama3.2:3b");
        assert_eq!(c.base_url, "http://localhost:11434/v1/");
        assert!(c.api_key.is_none());
        assert_eq!(c.label(), "ollama:llama3.2:3b");
    }

    #[test]
    fn hosted_providers_need_a_key_from_their_variable_or_knowers() {
        let vars = [("KNOWER_LLM", "anthropic:claude-sonnet-4-5")];
        let e = LlmConfig::resolve("", &env(&vars)).unwrap_err();
        assert!(e.to_string().contains("ANTHROPIC_API_KEY"), "{e}");
        let vars = [
            ("KNOWER_LLM", "anthropic:claude-sonnet-4-5"),
            ("ANTHROPIC_API_KEY", "k1"),
        ];
        let c = LlmConfig::resolve("", &env(&vars)).unwrap().unwrap();
        assert_eq!(c.api_key.as_deref(), Some("k1"));
        assert_eq!(c.provider.protocol(), Protocol::AnthropicMessages);
        assert!(!format!("{c:?}").contains("k1"), "the key is never printed");
        let vars = [
            ("KNOWER_LLM", "openai:gpt-4o"),
            ("KNOWER_LLM_API_KEY", "k2"),
        ];
        let c = LlmConfig::resolve("", &env(&vars)).unwrap().unwrap();
        assert_eq!(c.api_key.as_deref(), Some("k2"));
    }

    #[test]
    fn file_settings_and_base_url_normalised() {
        let file = "[llm]\nprovider = \"openai-compatible\"\nmodel = \"m\"\n\
                    base_url = \"http://127.0.0.1:9/v1\"\ntimeout_secs = 2.5\nmax_retries = 0\n";
        let c = LlmConfig::resolve(file, &env(&[])).unwrap().unwrap();
        assert_eq!(c.base_url, "http://127.0.0.1:9/v1/");
        assert_eq!(c.timeout, Duration::from_millis(2500));
        assert_eq!(c.max_retries, 0);
        assert!(c.local);
    }

    #[test]
    fn defaults_follow_the_kind_of_server() {
        let hosted = [("KNOWER_LLM", "openai:gpt-4o"), ("OPENAI_API_KEY", "k")];
        let c = LlmConfig::resolve("", &env(&hosted)).unwrap().unwrap();
        assert!(!c.local);
        assert_eq!(
            (c.timeout, c.max_retries, c.max_output_tokens),
            (
                DEFAULT_TIMEOUT,
                DEFAULT_MAX_RETRIES,
                DEFAULT_MAX_OUTPUT_TOKENS
            )
        );
        for (spec, url) in [
            ("llamacpp:gemma", None),
            ("openai-compatible:m", Some("http://192.168.1.20:8080/v1")),
            ("openai-compatible:m", Some("http://[::1]:8080/v1")),
            ("openai-compatible:m", Some("http://localhost:1/v1")),
        ] {
            let mut vars = vec![("KNOWER_LLM", spec)];
            if let Some(url) = url {
                vars.push(("KNOWER_LLM_BASE_URL", url));
            }
            let c = LlmConfig::resolve("", &env(&vars)).unwrap().unwrap();
            assert!(c.local, "{spec} {url:?}");
            assert_eq!(
                (c.timeout, c.max_retries, c.max_output_tokens),
                (LOCAL_TIMEOUT, LOCAL_MAX_RETRIES, LOCAL_MAX_OUTPUT_TOKENS)
            );
        }
        let remote = [
            ("KNOWER_LLM", "openai-compatible:m"),
            ("KNOWER_LLM_BASE_URL", "https://api.together.xyz/v1"),
        ];
        assert!(
            !LlmConfig::resolve("", &env(&remote))
                .unwrap()
                .unwrap()
                .local
        );
    }

    #[test]
    fn clear_errors_for_bad_settings() {
        let cases = [
            ("", vec![("KNOWER_LLM", "gpt:x")], "unknown provider"),
            ("", vec![("KNOWER_LLM", "ollama")], "no model"),
            ("", vec![("KNOWER_LLM", "openai-compatible:m")], "base URL"),
            (
                "[llm]\nprovider = \"ollama\"\nmodel = \"m\"\nbase_url = \"ftp://x\"\n",
                vec![],
                "not an http",
            ),
            ("[llm]\nprovder = \"ollama\"\n", vec![], "unknown field"),
            (
                "[llm]\nprovider = \"ollama\"\nmodel = \"m\"\ntimeout_secs = -1\n",
                vec![],
                "positive",
            ),
        ];
        for (file, vars, expected) in cases {
            let e = LlmConfig::resolve(file, &env(&vars))
                .unwrap_err()
                .to_string();
            assert!(e.contains(expected), "{file:?} {vars:?}: {e}");
        }
    }
}
