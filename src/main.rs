//! The `iosift` command line: parses arguments, runs a command, maps errors
//! to exit codes (0 success, 1 nothing could be read or analyzed, 2 usage).
//! Every error line names the path or the option it is about.

use anyhow::Result;
use clap::{Parser, Subcommand};
use iosift::bundle::{self, Limits};
use iosift::inspect;
use iosift::outdir::{Kind, Origin, Target};
use std::path::PathBuf;
use std::process::ExitCode;

/// Analyzer for Linux and MySQL I/O incident captures.
/// Examples of `iosift --help`.
const EX_TOP: &str = "Examples:
  iosift analyze capture.tar.gz          one capture: reports/<name>/index.html + findings.json
  iosift batch customer-captures/        every capture in the folder, worst first in reports/index.html
  iosift diff before.tar.gz after.tar.gz what changed between two captures
  iosift help analyze                    the options and examples of one command";
/// Examples of `iosift inspect --help`.
const EX_INSPECT: &str = "Examples:
  iosift inspect capture/                 what each file is, its records, time range and diagnostics
  iosift inspect capture.tar.gz --json    the same as JSON";
/// Examples of `iosift formats --help`.
const EX_FORMATS: &str = "Examples:
  iosift formats                          every format iosift reads, with one real line each";
/// Examples of `iosift analyze --help`.
const EX_ANALYZE: &str = "Examples:
  iosift analyze capture.tar.gz                     report in reports/<name>/ (index.html, findings.json)
  iosift analyze capture/ -o /tmp/incident-42       report in that folder
  iosift analyze capture/ --from 10:02:00 --to 10:07:00
                                                    only that window (in the capture's zone)
  iosift analyze pt-stalk-dir/ --prefix 2024_05_01_10_02_03
                                                    one pt-stalk sample of several
  iosift analyze capture/ --json > findings.json    the findings on stdout
  iosift analyze capture/ --md                      the verdict in Markdown, to paste into a ticket
  iosift analyze capture/ --scrub -o shareable      a report without the customer's names (iosift scrub first)";
/// Examples of `iosift batch --help`.
const EX_BATCH: &str = "Examples:
  iosift batch customer-captures/                   one report each + reports/index.html (worst first)
  iosift batch a.tar.gz b/ -o triage --jobs 4       into triage/, four captures at a time
  iosift batch captures/ --bundle-timeout 300       give up on a capture after 5 minutes";
/// Examples of `iosift diff --help`.
const EX_DIFF: &str = "Examples:
  iosift diff before.tar.gz after.tar.gz            reports/diff-<A>-<B>/index.html + diff.json
  iosift diff durable/ relaxed/ --json              diff.json on stdout
  iosift diff a/ b/ --align-a 10:02:00 --align-b 14:30:00
                                                    compare from those two instants";
/// Examples of `iosift scrub --help`.
const EX_SCRUB: &str = "Examples:
  iosift scrub capture.tar.gz -o shareable.tar.gz  the same archive without hostnames, addresses, users,
                                                    schemas, tables, SQL literals, UUIDs, home paths
  iosift scrub capture/ -o shareable/ --key-file team.key --keep-map map.json
                                                    the same tokens as every capture scrubbed with team.key;
                                                    map.json (kept apart) turns tokens back into names
  iosift scrub capture/ -o out/ --keyword acme --path-root /data
                                                    also the word acme, and paths under /data";
/// Examples of `iosift tables --help`.
const EX_TABLES: &str = "Examples:
  iosift tables capture/ -o tables                  Parquet per source + the 1 s timeline
  iosift tables capture/ -o tables --format csv     the same as CSV";

#[derive(Parser)]
#[command(name = "iosift", version, about, long_about = None, after_help = EX_TOP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print only errors (no summary, no progress).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Also print each input file with its format and notes, and every file written.
    #[arg(short, long, global = true)]
    verbose: bool,
}

/// A usage error of our own (a bad option value, an empty window): exit status 2.
#[derive(Debug)]
struct Usage(String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

fn usage(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Usage(msg.into()))
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
    #[command(after_help = EX_INSPECT)]
    Inspect(InspectArgs),
    /// The supported formats with one real sample line each.
    #[command(after_help = EX_FORMATS)]
    Formats,
    /// Analyze one bundle: findings.json, index.html, charts and tables.
    #[command(after_help = EX_ANALYZE)]
    Analyze(AnalyzeArgs),
    /// Analyze every bundle under the folders: one report each plus an overview.
    ///
    /// Exit status: 0 when every capture was analyzed, 1 when any failed (the count on
    /// stderr; the overview lists them first), 2 on a usage error.
    #[command(after_help = EX_BATCH)]
    Batch(BatchArgs),
    /// What changed between two captures: diff.json and index.html (ranked changes,
    /// findings that appear or vanish, the context that differs, overlaid charts).
    #[command(after_help = EX_DIFF)]
    Diff(DiffArgs),
    /// Write the aligned tables of a bundle (per source and the 1 s timeline).
    #[command(after_help = EX_TABLES)]
    Tables(TablesArgs),
    /// A copy of a capture in the same layout and formats without hostnames, IP and MAC
    /// addresses, users, schema/table/column names, SQL literals, UUIDs and home paths
    /// (docs/scrub.md).
    #[command(after_help = EX_SCRUB)]
    Scrub(ScrubArgs),
}

// The options of `iosift scrub`.
#[derive(clap::Args)]
struct ScrubArgs {
    /// The capture: a folder, an archive (.tar, .tar.gz, .tar.zst, .tar.xz, .tar.bz2, .zip) or one file.
    path: PathBuf,
    /// The scrubbed copy: a new path (or an empty folder); a folder for a folder, the same
    /// kind of archive for an archive.
    #[arg(short, long, required = true)]
    output: PathBuf,
    /// Write the reverse map (kind -> original -> token, JSON) to this file, never inside
    /// the output. Keep it apart: it holds the originals.
    #[arg(long, value_name = "MAP.json")]
    keep_map: Option<PathBuf>,
    #[command(flatten)]
    scrub: ScrubOpts,
}

/// What scrubbing replaces and under which key (`scrub`, `analyze --scrub`).
#[derive(clap::Args, Clone)]
struct ScrubOpts {
    /// The key of the tokens (64 hex digits, or any text); created with a new random key
    /// when missing. The same key gives the same tokens in every capture. Without it, a
    /// random key for this run only.
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// A word to replace wherever it appears, case-insensitive (a customer or project name); repeat.
    #[arg(long = "keyword", value_name = "W")]
    keywords: Vec<String>,
    /// Replace paths under this folder component by component (default: /home and /Users); repeat.
    #[arg(long = "path-root", value_name = "DIR")]
    roots: Vec<String>,
}

impl ScrubOpts {
    /// The scrub options, the key read (or created: said on stderr).
    fn options(&self, keep_map: bool) -> Result<iosift::scrub::Options> {
        let key = match &self.key_file {
            Some(f) => {
                let (key, created) = iosift::scrub::Key::load_or_create(f)?;
                if created {
                    eprintln!(
                        "iosift: created the key file {} (keep it to scrub later captures with the same tokens)",
                        iosift::term::safe(&f.display().to_string())
                    );
                }
                key
            }
            None => iosift::scrub::Key::random()?,
        };
        let roots = if self.roots.is_empty() {
            iosift::scrub::DEFAULT_ROOTS.iter().map(|r| r.to_string()).collect()
        } else {
            self.roots.clone()
        };
        Ok(iosift::scrub::Options { key, keep_map, keywords: self.keywords.clone(), roots })
    }
}

// The options of `iosift inspect`.
#[derive(clap::Args)]
struct InspectArgs {
    /// Files, directories or archives.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Print the JSON document of the contract instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    time: TimeArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

// The options of `iosift analyze`.
#[derive(clap::Args)]
struct AnalyzeArgs {
    /// The bundle: a directory, archive(s) or files (with --nodes: the folder whose
    /// subfolders and archives are the nodes).
    #[arg(required_unless_present = "node")]
    paths: Vec<PathBuf>,
    /// One node of a cluster, NAME=PATH (repeat for each node): one report per node under
    /// nodes/NAME/ and a cluster page (clock offsets, replication chains, findings by node).
    #[arg(long, value_name = "NAME=PATH", conflicts_with_all = ["nodes", "json", "md", "prefix"])]
    node: Vec<String>,
    /// The one PATH is a folder whose subfolders and archives are the nodes of a cluster.
    #[arg(long, conflicts_with_all = ["json", "md", "prefix"])]
    nodes: bool,
    /// Output folder (default: reports/<bundle name>, e.g. reports/mmap_large_folio for
    /// samples/mmap_large_folio/capture; reports/<bundle name>-2, ... when that folder
    /// holds the report of another capture).
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    time: TimeArgs,
    /// Print findings.json on stdout instead of the terminal summary.
    #[arg(long)]
    json: bool,
    /// Print summary.md (the verdict and each finding in Markdown, for a ticket) on stdout
    /// instead of the terminal summary.
    #[arg(long, conflicts_with = "json")]
    md: bool,
    /// Exit with status 1 when any input file could not be parsed.
    #[arg(long)]
    strict: bool,
    /// Which pt-stalk sample to analyze when the folder holds several (default: the latest).
    #[arg(long)]
    prefix: Option<String>,
    /// Scrub the capture first (as `iosift scrub` does, into a private temporary folder)
    /// and report on the scrubbed copy: a report to share (docs/scrub.md).
    #[arg(long, conflicts_with_all = ["node", "nodes"])]
    scrub: bool,
    #[command(flatten)]
    scrub_opts: ScrubOpts,
    #[command(flatten)]
    limits: LimitArgs,
}

// The options of `iosift batch`.
#[derive(clap::Args)]
struct BatchArgs {
    /// Folders holding bundles (subfolders or archives).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Output folder (default: reports/, or reports-2, ... when reports/ holds another batch).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Bundles analyzed at once (1 or more).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: u16,
    /// Seconds one bundle may take (1 or more); a bundle past it is a failed row and the batch goes on.
    #[arg(long, default_value_t = iosift::batch::DEFAULT_DEADLINE.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    bundle_timeout: u64,
    #[command(flatten)]
    time: TimeArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

// The options of `iosift diff`.
#[derive(clap::Args)]
struct DiffArgs {
    /// The first capture ("before"): a directory or archive.
    a: PathBuf,
    /// The second capture ("after").
    b: PathBuf,
    /// Output folder (default: reports/diff-<A>-<B>).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Relative time 0 of A (default: its first second); the forms of --from.
    #[arg(long, allow_hyphen_values = true)]
    align_a: Option<String>,
    /// Relative time 0 of B (default: its first second).
    #[arg(long, allow_hyphen_values = true)]
    align_b: Option<String>,
    /// Print diff.json on stdout instead of the text summary.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    time: TimeArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

// The options of `iosift tables`.
#[derive(clap::Args)]
struct TablesArgs {
    /// The bundle: a directory, archive(s) or files.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output folder.
    #[arg(short, long, required = true)]
    output: PathBuf,
    /// Table format.
    #[arg(long, value_enum, default_value = "parquet")]
    format: iosift::table::TableFormat,
    #[command(flatten)]
    time: TimeArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

/// Clock options.
#[derive(clap::Args, Clone)]
struct TimeArgs {
    /// Time zone of the capturing host (`Europe/Berlin`, `+02:00`, `-0500`, `UTC`, `CET`):
    /// overrides what the capture says. IANA zones follow daylight saving time.
    #[arg(long, allow_hyphen_values = true)]
    tz: Option<String>,
    /// Analyze from this time on: RFC 3339, epoch seconds, `2026-11-29 19:38:00` or
    /// `19:38:00` (in the capture's zone), or an offset from the start (`+90s`) or end (`-2m`).
    #[arg(long, allow_hyphen_values = true)]
    from: Option<String>,
    /// Analyze up to this time (same forms as --from).
    #[arg(long, allow_hyphen_values = true)]
    to: Option<String>,
    /// Show times in the report, charts and summary in `utc` (default), `host` (the
    /// capture's zone) or a zone (`Europe/Berlin`, `+05:30`, `-0500`).
    #[arg(long, default_value = "utc", allow_hyphen_values = true)]
    display_tz: String,
    /// TOML file overriding the write-source categories ([comm] and [ps_name] prefix -> category).
    #[arg(long)]
    taxonomy: Option<PathBuf>,
}

impl TimeArgs {
    fn options(&self) -> Result<iosift::pipeline::Options> {
        let tz = match &self.tz {
            Some(t) => {
                Some((iosift::clock::parse_tz(t).map_err(|e| usage(format!("--tz: {e}")))?, t.clone()))
            }
            None => None,
        };
        let taxonomy = match &self.taxonomy {
            Some(p) => iosift::attribution::Taxonomy::from_toml(
                // A regular file or a pipe of at most 1 MiB (`/dev/zero` or a FIFO never hangs the run).
                &iosift::bundle::read_option_file(p, 1 << 20)
                    .map_err(|e| usage(format!("--taxonomy {}: {e}", p.display())))?,
            )
            .map_err(|e| usage(format!("--taxonomy {}: {e}", p.display())))?,
            None => Default::default(),
        };
        Ok(iosift::pipeline::Options {
            tz,
            from: time_spec("--from", &self.from)?,
            to: time_spec("--to", &self.to)?,
            display_tz: iosift::pipeline::DisplayTz::parse(&self.display_tz)
                .map_err(|e| usage(format!("--display-tz: {e}")))?,
            taxonomy,
        })
    }
}

/// A time option (`--from`, `--align-a`, ...) parsed; a bad value is a usage error naming the flag.
fn time_spec(flag: &str, v: &Option<String>) -> Result<Option<iosift::clock::window::TimeSpec>> {
    v.as_deref()
        .map(|s| iosift::clock::window::parse_time_spec(s).map_err(|e| usage(format!("{flag}: {e}"))))
        .transpose()
}

/// How much the command prints besides its result.
#[derive(Clone, Copy)]
struct Verbosity {
    quiet: bool,
    verbose: bool,
}

/// The paths as the user gave them, for messages.
/// The refusal of an input holding several captures ([`iosift::pipeline::captures::refusal`]),
/// their folders named under the folder given.
fn mixed(report: &iosift::model::Report, paths: &[PathBuf]) -> String {
    let root = match paths {
        [one] if one.is_dir() => Some(one.display().to_string()),
        _ => None,
    };
    iosift::pipeline::captures::refusal(&report.captures, &given(paths), root.as_deref())
}

fn given(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("iosift: {}", iosift::term::safe(&format!("{e:#}")));
            let refused = e.downcast_ref::<iosift::outdir::OutputError>().is_some_and(|e| e.is_refusal())
                || e.downcast_ref::<iosift::scrub::ScrubError>().is_some_and(|e| e.is_refusal());
            if refused || e.downcast_ref::<Usage>().is_some() { ExitCode::from(2) } else { ExitCode::from(1) }
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let v = Verbosity { quiet: cli.quiet, verbose: cli.verbose };
    match cli.command {
        Command::Inspect(a) => inspect(a),
        Command::Analyze(a) => analyze(a, v),
        Command::Batch(a) => batch(a, v),
        Command::Tables(a) => tables(a, v),
        Command::Diff(a) => diff(a, v),
        Command::Formats => formats(),
        Command::Scrub(a) => scrub(a, v),
    }
}

/// `iosift scrub`: the scrubbed copy and a summary of what was replaced.
fn scrub(ScrubArgs { path, output, keep_map, scrub }: ScrubArgs, v: Verbosity) -> Result<ExitCode> {
    if let Some(m) = &keep_map {
        iosift::scrub::check_map_path(m, &output).map_err(|e| usage(e.to_string()))?;
        if m.exists() {
            return Err(usage(format!("--keep-map {}: the file exists; choose a new path", m.display())));
        }
    }
    let opts = scrub.options(keep_map.is_some())?;
    let progress = iosift::progress::Progress::start(v.quiet);
    let summary = iosift::scrub::scrub(&path, &output, &opts, &|s| progress.stage(s))?;
    progress.finish();
    if let (Some(m), Some(json)) = (&keep_map, summary.map_json()) {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(m)?;
        f.write_all(json.as_bytes())?;
    }
    if !v.quiet {
        emit(&iosift::term::safe(&scrub_summary(&summary, &output)))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The end-of-run summary of `iosift scrub`: files by format and by generic patterns,
/// replacements by kind.
fn scrub_summary(s: &iosift::scrub::Summary, out: &std::path::Path) -> String {
    let mut by: std::collections::BTreeMap<String, usize> = Default::default();
    let mut generic = Vec::new();
    for f in &s.files {
        match f.format {
            Some(id) => *by.entry(format!("{id} ({})", f.how)).or_default() += 1,
            None => {
                *by.entry(format!("no format ({})", f.how)).or_default() += 1;
                if f.how == "generic" {
                    generic.push(f.name.clone());
                }
            }
        }
    }
    let mut t = format!("scrubbed {} files into {}\n", s.files.len(), out.display());
    for (k, n) in &by {
        t += &format!("  {n:>5}  {k}\n");
    }
    if !generic.is_empty() {
        t += &format!("read by no format, scrubbed by the generic patterns: {}\n", generic.join(", "));
    }
    let counts: Vec<String> = s.counts.iter().map(|(k, n)| format!("{} {n}", k.name())).collect();
    t += &format!("replaced: {} ({} names learnt from the capture)\n", counts.join(", "), s.learnt);
    for sk in &s.skipped {
        t += &format!("left out: {sk}\n");
    }
    t
}

/// `analyze --scrub`: the capture scrubbed into a private temporary folder (removed on
/// drop); the path to analyze and the origin the report folder records.
struct Scrubbed {
    tmp: PathBuf,
    path: PathBuf,
}

impl Drop for Scrubbed {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

/// The scrubbed copy's path (`<tmp>/scrubbed-<tok>[.ext]`), not yet written.
fn scrub_target(paths: &[PathBuf], opts: &iosift::scrub::Options) -> Result<Scrubbed> {
    let [one] = paths else {
        return Err(usage("--scrub: give one capture (a folder or an archive)"));
    };
    let name = iosift::scrub::bundle_name(&bundle::bundle_name(paths), &opts.key);
    let file = one.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let ext =
        [".tar.gz", ".tgz", ".tar.zst", ".tzst", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tar", ".zip"]
            .into_iter()
            .find(|e| !one.is_dir() && file.ends_with(e))
            .unwrap_or("");
    let tmp = std::env::temp_dir().join(format!(
        "iosift-scrub-{}-{}",
        std::process::id(),
        opts.key.token("tmp", b"", 8)
    ));
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new().mode(0o700).create(&tmp)?;
    }
    Ok(Scrubbed { path: tmp.join(format!("{name}{ext}")), tmp })
}

/// `iosift inspect`: each file's format, records, time range and diagnostics.
fn inspect(InspectArgs { paths, json, time, limits }: InspectArgs) -> Result<ExitCode> {
    let limits = limits.limits();
    let opts = time.options()?;
    let mut reports = Vec::new();
    let mut problems = Vec::new();
    for p in &paths {
        match bundle::load_one(p, &limits) {
            Ok(b) => {
                reports.extend(inspect::inspect_bundle(&b, &opts));
                problems.extend(b.problems);
            }
            Err(e) => {
                problems.push(bundle::Problem { name: p.display().to_string(), message: e.to_string() })
            }
        }
    }
    for pr in &problems {
        eprintln!("iosift: {}", iosift::term::one_line(&format!("{}: {}", pr.name, pr.message)));
    }
    if json {
        let doc = serde_json::json!({ "files": reports });
        emit(&iosift::term::safe_json(&(serde_json::to_string_pretty(&doc)? + "\n")))?;
    } else {
        emit(&iosift::term::safe(&inspect::render_text(&reports)))?;
    }
    let any = reports.iter().any(|r| r.format.is_some());
    Ok(if any { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `iosift analyze`: one bundle's report folder and its summary.
fn analyze(args: AnalyzeArgs, v: Verbosity) -> Result<ExitCode> {
    if !args.node.is_empty() || args.nodes {
        return cluster(args, v);
    }
    let AnalyzeArgs { paths, output, time, json, md, strict, prefix, limits, scrub, scrub_opts, .. } = args;
    let opts = time.options()?;
    let o = &scrub_opts;
    if !scrub && (o.key_file.is_some() || !o.keywords.is_empty() || !o.roots.is_empty()) {
        return Err(usage("--key-file, --keyword and --path-root go with --scrub"));
    }
    let scrubbing = scrub.then(|| scrub_opts.options(false)).transpose()?;
    let scrubbed = scrubbing.as_ref().map(|o| scrub_target(&paths, o)).transpose()?;
    // A scrubbed report records no original path, only the scrubbed copy's name.
    let origin = match &scrubbed {
        Some(s) => Origin::new(
            Kind::Analyze,
            &[PathBuf::from("/scrubbed").join(s.path.file_name().unwrap_or_default())],
        ),
        None => Origin::new(Kind::Analyze, &paths),
    };
    // Refuse a folder that may not be written before the work, not after.
    let explicit = output.as_deref().map(|o| settled(Target::explicit(o, origin.clone()))).transpose()?;
    let progress = iosift::progress::Progress::start(v.quiet || json || md);
    let paths = match (&scrubbed, &scrubbing) {
        (Some(s), Some(o)) => {
            iosift::scrub::scrub(&paths[0], &s.path, o, &|m| progress.stage(m))?;
            vec![s.path.clone()]
        }
        _ => paths,
    };
    progress.stage(format!("reading {}", given(&paths)));
    let bundle = choose_sample(bundle::load(&paths, &limits.limits())?, prefix.as_deref())?;
    progress.stage(format!("analyzing ({} read)", iosift::progress::read_words(&bundle)));
    let report = iosift::analyze::analyze(&bundle, &opts);
    progress.stage(format!(
        "writing the report ({} read, {} findings)",
        iosift::progress::read_words(&bundle),
        report.doc.findings.len()
    ));
    if let Some(e) = &report.window_error {
        return Err(usage(e.clone()));
    }
    if report.captures.len() > 1 {
        return Err(usage(mixed(&report, &paths)));
    }
    if let Some(e) = iosift::analyze::nothing_readable(&report, &given(&paths)) {
        anyhow::bail!("{e}; no report written");
    }
    if v.verbose {
        print_inputs(&report);
    }
    let target = match explicit {
        Some(t) => t,
        None => settled(Target::default_at(&PathBuf::from("reports").join(&bundle.name), origin))?,
    };
    let (written, notes) = iosift::output::write_all_noted(&report, &target)?;
    progress.finish();
    let dir = target.path().to_path_buf();
    for n in &notes {
        eprintln!("iosift: {}", iosift::term::safe(n));
    }
    if v.verbose {
        for w in &written {
            eprintln!("wrote {}", iosift::term::safe(&w.display().to_string()));
        }
    }
    if json || v.quiet {
        // The terminal summary lists the problems; without it they go to stderr (with
        // --json an encrypted zip said nothing anywhere but in findings.json).
        print_problems(&report.problems);
    }
    if json {
        emit(&iosift::term::safe_json(&(serde_json::to_string_pretty(&report.doc)? + "\n")))?;
    } else if md {
        emit(&std::fs::read_to_string(dir.join("summary.md"))?)?;
    } else if !v.quiet {
        let style = iosift::report::summary::Style::for_stdout();
        emit(&iosift::report::summary::terminal_summary_styled(&report, &dir, style))?;
    }
    let failed = report.doc.bundle.inputs.iter().any(|i| i.skipped_lines > 0) || !report.problems.is_empty();
    // The process ends here: freeing millions of parsed rows one by one would only cost time.
    std::mem::forget(report);
    std::mem::forget(bundle);
    Ok(if strict && failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `iosift analyze --node NAME=PATH ...` / `--nodes DIR`: one report per node and the cluster page.
fn cluster(
    AnalyzeArgs { paths, node, output, time, strict, limits, .. }: AnalyzeArgs,
    v: Verbosity,
) -> Result<ExitCode> {
    use iosift::cluster::{self, NodeSpec};
    let opts = time.options()?;
    let specs: Vec<NodeSpec> = if node.is_empty() {
        match &paths[..] {
            [dir] if dir.is_dir() => NodeSpec::from_folder(dir),
            _ => return Err(usage("--nodes takes one folder whose subfolders or archives are the nodes")),
        }
    } else {
        if !paths.is_empty() {
            return Err(usage(format!("--node names every node; {} given besides", given(&paths))));
        }
        node.iter().map(|n| NodeSpec::parse(n)).collect::<Result<_, _>>().map_err(|e| usage(e.to_string()))?
    };
    cluster::check(&specs).map_err(|e| usage(e.to_string()))?;
    let inputs: Vec<PathBuf> = specs.iter().map(|s| s.path.clone()).collect();
    let origin = Origin::new(Kind::Analyze, &inputs);
    let default_name = match &paths[..] {
        [dir] => format!(
            "cluster-{}",
            bundle::sanitize_file_name(&dir.file_name().unwrap_or_default().to_string_lossy())
        ),
        _ => format!("cluster-{}", specs.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join("-")),
    };
    let target = settled(match &output {
        Some(o) => Target::explicit(o, origin),
        None => Target::default_at(
            &PathBuf::from("reports").join(default_name.chars().take(100).collect::<String>()),
            origin,
        ),
    })?;
    let progress = iosift::progress::Progress::start(v.quiet);
    let total = specs.len();
    let seen = std::cell::Cell::new(0usize);
    let c = cluster::analyze(&specs, &opts, &limits.limits(), &|name| {
        seen.set(seen.get() + 1);
        progress.stage(format!("node {}/{total}: {name}", seen.get()));
    });
    if c.nodes.iter().all(|n| n.report.is_none()) {
        for n in &c.nodes {
            eprintln!(
                "iosift: {}",
                iosift::term::safe(&format!("{}: {}", n.name, n.error.as_deref().unwrap_or("")))
            );
        }
        anyhow::bail!("no node could be analyzed; no report written");
    }
    progress.stage("writing the cluster report".to_string());
    let staging = iosift::outdir::Staging::begin(&target)?;
    cluster::page::write_into(&c, staging.path())?;
    for n in staging.commit()? {
        eprintln!("iosift: {}", iosift::term::safe(&n));
    }
    progress.finish();
    let failed = c.nodes.iter().any(|n| n.error.is_some());
    for n in c.nodes.iter().filter(|n| n.error.is_some()) {
        eprintln!(
            "iosift: {}",
            iosift::term::safe(&format!(
                "node {} not analyzed: {}",
                n.name,
                n.error.as_deref().unwrap_or("")
            ))
        );
    }
    if !v.quiet {
        emit(&iosift::term::safe(&cluster::page::terminal(&c, target.path())))?;
    }
    Ok(if strict && failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `iosift batch`: every bundle under the folders, and the overview.
fn batch(
    BatchArgs { dirs, output, jobs, bundle_timeout, time, limits }: BatchArgs,
    v: Verbosity,
) -> Result<ExitCode> {
    let opts = time.options()?;
    let origin = Origin::new(Kind::Batch, &dirs);
    let target = settled(match &output {
        Some(o) => Target::explicit(o, origin),
        None => Target::default_at(std::path::Path::new("reports"), origin),
    })?;
    let rows = iosift::batch::run_timed(
        &dirs,
        target.path(),
        usize::from(jobs),
        &opts,
        &limits.limits(),
        v.quiet,
        std::time::Duration::from_secs(bundle_timeout),
    )?;
    let ok = rows.iter().filter(|r| r.error.is_none()).count();
    for r in rows.iter().filter(|r| r.error.is_some()) {
        eprintln!(
            "iosift: {}",
            iosift::term::safe(&format!("{}: {}", r.bundle, r.error.as_deref().unwrap_or("")))
        );
    }
    if !v.quiet {
        emit(&format!(
            "{} bundles, {ok} analyzed, {} failed; overview: {}\n",
            rows.len(),
            rows.len() - ok,
            target.path().join("index.html").display()
        ))?;
    }
    // 0: every capture analyzed; 1: some failed (the count on stderr, quiet or not).
    let failed = rows.len() - ok;
    if failed > 0 {
        eprintln!("iosift: {failed} of {} captures failed", rows.len());
    }
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `iosift tables`: the aligned tables of one bundle.
fn tables(TablesArgs { paths, output, format, time, limits }: TablesArgs, v: Verbosity) -> Result<ExitCode> {
    let opts = time.options()?;
    let target = settled(Target::explicit(&output, Origin::new(Kind::Tables, &paths)))?;
    let bundle = bundle::load(&paths, &limits.limits())?;
    let (written, warnings, notes) = iosift::output::write_tables_to(&bundle, &opts, &target, format)
        .map_err(|e| match e.downcast::<iosift::output::WindowError>() {
            Ok(w) => usage(w.0),
            Err(e) => e,
        })?;
    for n in &notes {
        eprintln!("iosift: {}", iosift::term::safe(n));
    }
    if !v.quiet {
        for w in &warnings {
            eprintln!("clock: {}", iosift::term::safe(w));
        }
        for w in &written {
            eprintln!("wrote {}", iosift::term::safe(&w.display().to_string()));
        }
    }
    Ok(if written.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `iosift diff`: what changed between two captures.
fn diff(
    DiffArgs { a, b, output, align_a, align_b, json, time, limits }: DiffArgs,
    v: Verbosity,
) -> Result<ExitCode> {
    let opts = time.options()?;
    let (align_a, align_b) = (time_spec("--align-a", &align_a)?, time_spec("--align-b", &align_b)?);
    let origin = Origin::new(Kind::Diff, &[a.clone(), b.clone()]);
    let explicit = output.as_deref().map(|o| settled(Target::explicit(o, origin.clone()))).transpose()?;
    type Loaded = (bundle::Bundle, iosift::model::Report, iosift::diff::context::Gathered);
    let load = |p: &PathBuf| -> Result<Loaded> {
        let bundle = choose_sample(bundle::load(std::slice::from_ref(p), &limits.limits())?, None)?;
        let report = iosift::analyze::analyze(&bundle, &opts);
        if let Some(e) = &report.window_error {
            return Err(usage(e.clone()));
        }
        if report.captures.len() > 1 {
            return Err(usage(mixed(&report, std::slice::from_ref(p)).replace("no report", "no diff")));
        }
        if let Some(e) = iosift::analyze::nothing_readable(&report, &p.display().to_string()) {
            anyhow::bail!("{e}; no diff written");
        }
        let gathered = iosift::diff::context::gather(&report);
        Ok((bundle, report, gathered))
    };
    // The two analyses are independent: run them side by side.
    let (one, two) = rayon::join(|| load(&a), || load(&b));
    let ((ba, ra, (fa, ea)), (bb, rb, (fb, eb))) = (one?, two?);
    let sa = iosift::diff::Side { report: &ra, facts: fa, extra: ea, align: align_a };
    let sb = iosift::diff::Side { report: &rb, facts: fb, extra: eb, align: align_b };
    let doc = iosift::diff::diff(&sa, &sb).map_err(usage)?;
    let target = match explicit {
        Some(t) => t,
        None => settled(Target::default_at(&iosift::diff::default_dir(&ba.name, &bb.name), origin))?,
    };
    let written = iosift::diff::write_to(&doc, &ra, &rb, &target)?;
    let dir = target.path().to_path_buf();
    if v.verbose {
        for w in &written {
            eprintln!("wrote {}", iosift::term::safe(&w.display().to_string()));
        }
    }
    if json {
        emit(&iosift::term::safe_json(&(serde_json::to_string_pretty(&doc)? + "\n")))?;
    } else if !v.quiet {
        let width = iosift::report::summary::Style::for_stdout().width;
        emit(&iosift::term::safe(&iosift::diff::summary(&doc, &dir, width)))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `iosift formats`: every format read, with one real line each.
fn formats() -> Result<ExitCode> {
    let mut out = String::new();
    for f in iosift_parsers::FORMATS {
        out.push_str(&format!("{:<16} {}\n{:<16} e.g. {}\n", f.id, f.description, "", f.sample));
    }
    emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// `--verbose`: each input file with its format and note, on stderr.
fn print_inputs(report: &iosift::model::Report) {
    for i in &report.doc.bundle.inputs {
        let line = format!(
            "input {}: {}{}",
            i.path,
            i.format.unwrap_or("not recognised"),
            i.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default()
        );
        eprintln!("{}", iosift::term::safe(&line));
    }
}

/// The bundle's problems on stderr (the first 20, then how many more).
fn print_problems(problems: &[bundle::Problem]) {
    const SHOWN: usize = 20;
    for p in problems.iter().take(SHOWN) {
        eprintln!("iosift: {}", iosift::term::one_line(&format!("{}: {}", p.name, p.message)));
    }
    if problems.len() > SHOWN {
        eprintln!("iosift: ... and {} more problems (findings.json lists them)", problems.len() - SHOWN);
    }
}

/// The output folder checked before any work ([`Target::settle`]), its notes said on stderr
/// (a link resolved, another name taken, a report restored).
fn settled(mut target: Target) -> Result<Target> {
    for n in target.settle()? {
        eprintln!("iosift: {}", iosift::term::safe(&n));
    }
    Ok(target)
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

/// A folder with several pt-stalk samples is several bundles: analyze the one
/// asked for (`--prefix`) or the latest, and say so.
fn choose_sample(b: bundle::Bundle, prefix: Option<&str>) -> Result<bundle::Bundle> {
    let mut parts = bundle::split_pt_stalk(b);
    let names: Vec<String> = parts.iter().map(|p| p.name.clone()).collect();
    if parts.len() == 1 {
        if let Some(p) = prefix
            && !names[0].ends_with(p)
        {
            return Err(usage(format!(
                "--prefix {p}: no such pt-stalk sample (the input holds one bundle, {})",
                names[0]
            )));
        }
        return Ok(parts.remove(0));
    }
    let idx = match prefix {
        Some(p) => parts.iter().position(|b| b.name.ends_with(p)).ok_or_else(|| {
            usage(format!("--prefix {p}: no such pt-stalk sample (have: {})", names.join(", ")))
        })?,
        None => parts.len() - 1,
    };
    let mut chosen = parts.swap_remove(idx);
    chosen.problems.push(bundle::Problem {
        name: chosen.name.clone(),
        message: format!(
            "the input holds {} pt-stalk samples ({}); this report covers {} (choose with --prefix, or use iosift batch for all)",
            names.len(),
            names.join(", "),
            chosen.name
        ),
    });
    Ok(chosen)
}
