//! `pir`: the command line (`check`, `lower`, `fmt`, `stats`) and the language server (`lsp`) of
//! the Penguin text IR (SPEC §9–§10).

mod cli;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// mimalloc, not the system allocator: the analysis allocates many small values (syntax
/// trees, resolved ops); a keystroke on a 10,000-op file took 2.35 ms of which a third was
/// glibc's malloc and free, and 1.57 ms with mimalloc (`benches/gen/examples/keystrokes.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The `pir` command line.
#[derive(Parser, Debug)]
#[command(
    name = "pir",
    version,
    about = "Check, lower and serve the Penguin text IR (pir-spec/3)"
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
        /// Output format: `human` (each diagnostic with its source line underlined, on
        /// stderr) or `json` (`{"files": [{"path", "diagnostics": [...]}]}` on stdout, SPEC
        /// §9).
        #[arg(long, value_enum, default_value_t = Format::Human, hide_possible_values = true)]
        format: Format,
        /// Instead of the diagnostics, print the op of the BIR instruction named NAME
        /// (`I-33`, `I-21-0`, as the compiler's messages name it): its kernel, line and
        /// text, and its BIR. Exit 0 when found, 1 when no file has it.
        #[arg(long, value_name = "NAME")]
        explain: Option<String>,
        #[command(flatten)]
        settings: Settings,
        /// Files or folders (`-` is standard input).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Serve the language server protocol on stdin/stdout (exit 0 after shutdown).
    Lsp(LspArgs),
    /// Format files in place (or only report with --check: exit 1 when a file would change).
    Fmt {
        /// Do not write; exit 1 when a file is not formatted.
        #[arg(long)]
        check: bool,
        /// Files or folders (`-` is standard input, formatted to standard output).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Each kernel's resources (SPEC §10.1): static and executed instruction counts per
    /// engine, peak SBUF/PSUM occupancy per partition. Exit 0, or 2 on a usage or I/O error.
    Stats {
        /// Output format: `human` (a table per kernel) or `json` (`{"files": [{"path",
        /// "kernels": [...]}]}`, SPEC §10.1), both on stdout.
        #[arg(long, value_enum, default_value_t = Format::Human, hide_possible_values = true)]
        format: Format,
        #[command(flatten)]
        settings: Settings,
        /// Also draw each kernel's profile to this SVG file: a bar per engine against the
        /// lower bound, and the SBUF and PSUM occupancy over the ops (SPEC §10.1, §10.2).
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
        /// Files or folders (`-` is standard input).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Print the BIR JSON (SPEC §8) of one file; diagnostics go to stderr.
    Lower {
        /// The file (`-` is standard input).
        path: PathBuf,
        /// Write the JSON to this file instead of stdout (`-` is stdout).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        settings: Settings,
    },
}

/// The client settings the command line takes (the server's initialization options).
#[derive(clap::Args, Debug)]
pub struct Settings {
    /// The token-generation threshold of MLPKernel/NormQKV `is_tkg` (the server's
    /// `tkgSeqlenThreshold`; default 96).
    #[arg(long, value_name = "N")]
    tkg_seqlen_threshold: Option<u64>,
    /// The target NeuronCore generation (SPEC §4): its SBUF capacity (P304, P416), BIR
    /// `arch` and cost estimate.
    #[arg(long, value_name = "trn1|trn2|trn3", value_parser = parse_target, default_value = "trn2")]
    target: lower::target::Target,
}

/// A `--target` value: one of the three names (else a usage error naming them, exit 2).
fn parse_target(name: &str) -> Result<lower::target::Target, String> {
    lower::target::Target::from_name(name).ok_or_else(|| {
        format!(
            "unknown target `{name}`: the targets are {}",
            lower::target::Target::NAMES
        )
    })
}

/// `pir lsp`'s transport flags. LSP clients name the transport on the server's command
/// line by convention (vscode-languageclient's `TransportKind.stdio` appends `--stdio`);
/// stdio is the only one `pir lsp` serves, so `--stdio` is accepted and changes nothing,
/// and the other conventional transports are refused with a message (exit 2).
#[derive(clap::Args, Debug)]
struct LspArgs {
    /// Serve on stdin/stdout: the default and only transport (accepted because clients
    /// append it).
    #[arg(long)]
    stdio: bool,
    /// Not supported: a TCP socket (`--socket=PORT`).
    #[arg(long, value_name = "PORT", num_args = 0..=1, hide = true)]
    socket: Option<Option<String>>,
    /// Not supported: a named pipe (`--pipe=NAME`).
    #[arg(long, value_name = "NAME", num_args = 0..=1, hide = true)]
    pipe: Option<Option<String>>,
    /// Not supported: Node's IPC channel.
    #[arg(long, hide = true)]
    node_ipc: bool,
}

impl LspArgs {
    /// The flag of a transport other than stdio that was asked for, if any.
    fn other_transport(&self) -> Option<&'static str> {
        [
            (self.socket.is_some(), "--socket"),
            (self.pipe.is_some(), "--pipe"),
            (self.node_ipc, "--node-ipc"),
        ]
        .into_iter()
        .find_map(|(asked, flag)| asked.then_some(flag))
    }
}

/// `pir check --format` and `pir stats --format` (what each writes is in each command's
/// help).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people.
    Human,
    /// JSON.
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
            explain: Some(name),
            settings,
            paths,
        } => cli::explain(&paths, &name, format, &settings),
        Command::Check {
            format,
            explain: None,
            settings,
            paths,
        } => cli::check(&paths, format, &settings),
        Command::Lower {
            path,
            output,
            settings,
        } => cli::lower(&path, output.as_deref(), &settings),
        Command::Lsp(lsp) => match lsp.other_transport() {
            Some(flag) => {
                eprintln!(
                    "pir lsp: the {flag} transport is not supported: pir lsp serves LSP on \
                     stdin/stdout only (run `pir lsp` or `pir lsp --stdio`)"
                );
                2
            }
            None => u8::try_from(pir_lsp::server::run()).unwrap_or(1),
        },
        Command::Fmt { check, paths } => cli::fmt(&paths, check),
        Command::Stats {
            format,
            settings,
            plot,
            paths,
        } => cli::stats(&paths, format, &settings, plot.as_deref()),
    };
    ExitCode::from(code)
}
