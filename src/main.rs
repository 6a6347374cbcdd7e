//! The `iosift` command line: parses arguments, runs a command, maps errors
//! to exit codes (0 success, 1 nothing could be read or analyzed, 2 usage).

use anyhow::Result;
use clap::{Parser, Subcommand};
use iosift::bundle::{self, Limits};
use iosift::inspect;
use std::path::PathBuf;
use std::process::ExitCode;

/// Analyzer for Linux and MySQL I/O incident captures.
#[derive(Parser)]
#[command(name = "iosift", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Input limits shared by the commands that read captures.
#[derive(clap::Args, Clone)]
struct LimitArgs {
    /// Largest total decompressed size of a bundle, in bytes.
    #[arg(long, default_value_t = Limits::default().max_total_bytes)]
    max_bytes: u64,
    /// Most files in a bundle.
    #[arg(long, default_value_t = Limits::default().max_files)]
    max_files: usize,
    /// Deepest nesting of archives inside archives.
    #[arg(long, default_value_t = Limits::default().max_depth)]
    max_depth: usize,
}

impl LimitArgs {
    fn limits(&self) -> Limits {
        Limits { max_total_bytes: self.max_bytes, max_files: self.max_files, max_depth: self.max_depth }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Per file: detected format, variant, records, time range, diagnostics.
    Inspect {
        /// Files, directories or archives.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Print the JSON document of the contract instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// The supported formats with one real sample line each.
    Formats,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("iosift: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Inspect { paths, json, limits } => {
            let limits = limits.limits();
            let mut reports = Vec::new();
            let mut problems = Vec::new();
            for p in &paths {
                match bundle::load_one(p, &limits) {
                    Ok(b) => {
                        reports.extend(b.files.iter().map(inspect::inspect_file));
                        problems.extend(b.problems);
                    }
                    Err(e) => problems
                        .push(bundle::Problem { name: p.display().to_string(), message: e.to_string() }),
                }
            }
            for pr in &problems {
                eprintln!("iosift: {}: {}", pr.name, pr.message);
            }
            if json {
                let doc = serde_json::json!({ "files": reports });
                emit(&(serde_json::to_string_pretty(&doc)? + "\n"))?;
            } else {
                emit(&inspect::render_text(&reports))?;
            }
            let any = reports.iter().any(|r| r.format.is_some());
            Ok(if any { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::Formats => {
            let mut out = String::new();
            for f in iosift_parsers::FORMATS {
                out.push_str(&format!("{:<16} {}\n{:<16} e.g. {}\n", f.id, f.description, "", f.sample));
            }
            emit(&out)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Writes to stdout; a closed pipe (`iosift ... | head`) ends quietly.
fn emit(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        r => Ok(r?),
    }
}
