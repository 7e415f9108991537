//! `pir`: the command line (`check`, `lower`, `fmt`) and the language server (`lsp`) of
//! the Penguin text IR (SPEC §9–§10).

mod cli;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// The `pir` command line.
#[derive(Parser, Debug)]
#[command(
    name = "pir",
    version,
    about = "Check, lower and serve the Penguin text IR (pir-spec/2)"
)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check files and folders (recursing into *.pir): exit 0 when clean or only
    /// warnings, 1 on errors, 2 on usage or I/O errors.
    Check {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// The token-generation threshold of MLPKernel/NormQKV `is_tkg` (the server's
        /// `tkgSeqlenThreshold`; default 96).
        #[arg(long, value_name = "N")]
        tkg_seqlen_threshold: Option<u64>,
        /// Files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Serve the language server protocol on stdin/stdout (exit 0 after shutdown).
    Lsp,
    /// Format files in place (or only report with --check: exit 1 when a file would change).
    Fmt {
        /// Do not write; exit 1 when a file is not formatted.
        #[arg(long)]
        check: bool,
        /// Files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Print the BIR JSON (SPEC §8) of one file; diagnostics go to stderr.
    Lower {
        /// The file.
        path: PathBuf,
        /// Write the JSON to this file instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The token-generation threshold of MLPKernel/NormQKV `is_tkg` (the server's
        /// `tkgSeqlenThreshold`; default 96).
        #[arg(long, value_name = "N")]
        tkg_seqlen_threshold: Option<u64>,
    },
}

/// `pir check --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The source line with a caret, for people.
    Human,
    /// `{"files": [{"path", "diagnostics": […]}]}` (SPEC §9).
    Json,
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) => {
            let usage = e.use_stderr();
            let _ = e.print();
            return ExitCode::from(if usage { 2 } else { 0 });
        }
    };
    let code = match args.command {
        Command::Check {
            format,
            tkg_seqlen_threshold,
            paths,
        } => cli::check(&paths, format, tkg_seqlen_threshold),
        Command::Lower {
            path,
            output,
            tkg_seqlen_threshold,
        } => cli::lower(&path, output.as_deref(), tkg_seqlen_threshold),
        Command::Lsp => u8::try_from(pir_lsp::server::run()).unwrap_or(1),
        Command::Fmt { check, paths } => cli::fmt(&paths, check),
    };
    ExitCode::from(code)
}
