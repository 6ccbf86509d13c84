//! `[sync]` in the vault's `knower.toml`.

use serde::Deserialize;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Where the vault meets its other copies: a git URL (SSH, HTTPS, a
    /// path) or the name of a remote of the vault's repository. Unset: the
    /// repository's only remote, or `origin`.
    pub remote: Option<String>,
    /// `knower serve` syncs this often (0 or unset: only when asked).
    pub every_minutes: Option<u64>,
}

impl Settings {
    /// The `[sync]` section of `knower.toml`'s text (defaults for what it
    /// does not say); an unknown key is an error naming it.
    pub fn parse(toml_text: &str) -> Result<Settings, String> {
        let file: toml::Table =
            toml::from_str(toml_text).map_err(|e| format!("knower.toml: {e}"))?;
        match file.get("sync") {
            None => Ok(Settings::default()),
            Some(section) => section
                .clone()
                .try_into()
                .map_err(|e| format!("knower.toml [sync]: {e}")),
        }
    }

    /// The vault's settings (defaults when it has no knower.toml).
    pub fn of(vault: &knower_vault::Vault) -> Result<Settings, String> {
        Settings::parse(&vault.read("knower.toml").unwrap_or_default())
    }

    /// This machine's name in commits and conflicts: `$KNOWER_MACHINE`,
    /// else the host name. (Not a setting: knower.toml travels with the
    /// vault to every machine.)
    pub fn machine(&self) -> String {
        std::env::var("KNOWER_MACHINE")
            .ok()
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(host_name)
    }
}

/// The machine's host name, as the kernel has it.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "this machine".into())
}
