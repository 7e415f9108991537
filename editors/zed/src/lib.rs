//! The Zed extension of Penguin IR: runs the language server `pir lsp` for `*.pir` files,
//! with `pir` from the worktree's PATH, or the binary named in Zed's settings
//! (`"lsp": { "pir": { "binary": { "path": "/path/to/pir" } } }`).

use zed_extension_api::{self as zed, LanguageServerId, Result, settings::LspSettings};

/// The server's program when neither the settings nor PATH name one.
const SERVER: &str = "pir";
/// Its arguments: the language server on stdio.
const ARGS: [&str; 1] = ["lsp"];

struct PenguinIr;

impl zed::Extension for PenguinIr {
    fn new() -> Self {
        PenguinIr
    }

    fn language_server_command(
        &mut self,
        id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let binary = LspSettings::for_worktree(id.as_ref(), worktree)
            .ok()
            .and_then(|s| s.binary);
        let command = binary
            .as_ref()
            .and_then(|b| b.path.clone())
            .or_else(|| worktree.which(SERVER))
            .ok_or_else(|| {
                format!(
                    "`{SERVER}` is not on PATH: install it (`cargo install --path lsp`) or set \
                     lsp.pir.binary.path in Zed's settings"
                )
            })?;
        let args = binary
            .and_then(|b| b.arguments)
            .unwrap_or_else(|| ARGS.iter().map(|a| (*a).to_string()).collect());
        Ok(zed::Command {
            command,
            args,
            env: worktree.shell_env(),
        })
    }
}

zed::register_extension!(PenguinIr);
