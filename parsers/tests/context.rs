//! Context formats (uname, mounts, sysctl, sysfs, sections) on real files:
//! the shared corpus, the capture bundles and fixtures made on this VM.

#[macro_use]
#[path = "support/shared.rs"]
mod support;

use iosift_parsers::common::decode::maybe_gunzip;
use iosift_parsers::mounts::{Mounts, Origin};
use iosift_parsers::sections::Sections;
use iosift_parsers::sysctl::Sysctl;
use iosift_parsers::sysfs::{Sysfs, active_choice};
use iosift_parsers::uname::Uname;
use iosift_parsers::{Data, DiagKind, Format, Parsed, Summary, detect};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/context");

/// The format ids this helper owns.
const MINE: &[&str] =
    &["uname", "mounts", "sysctl", "sysfs", "sections", "mysql_variables", "mysql_threads", "mysqladmin_ext"];

fn read(path: &str) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    maybe_gunzip(&raw, 1 << 30).unwrap().into_owned()
}

fn corpus(name: &str) -> Vec<u8> {
    read(&format!("{}/corpus/context/{name}", support::root().display()))
}

fn fixture(name: &str) -> Vec<u8> {
    read(&format!("{FIXTURES}/{name}"))
}

/// Detects `input`, asserts the id, and returns the parse.
fn detected(input: &[u8], id: &str, what: &str) -> Parsed<Data> {
    let d = detect(input).unwrap_or_else(|| panic!("{what}: nothing detected"));
    assert_eq!(d.format.id, id, "{what}");
    d.parsed
}

fn assert_clean<T>(p: &Parsed<T>, what: &str) {
    assert!(p.diagnostics.is_empty(), "{what}: {:?}", &p.diagnostics[..p.diagnostics.len().min(5)]);
    assert_eq!(p.skipped_lines, 0, "{what}");
}

fn uname(input: &[u8], what: &str) -> Uname {
    let p = detected(input, "uname", what);
    assert_clean(&p, what);
    match p.value {
        Data::Uname(u) => u,
        other => panic!("{what}: {other:?}"),
    }
}

fn mounts(input: &[u8], what: &str) -> Mounts {
    let p = detected(input, "mounts", what);
    assert_clean(&p, what);
    match p.value {
        Data::Mounts(m) => m,
        other => panic!("{what}: {other:?}"),
    }
}

fn sysctl(input: &[u8], what: &str) -> Parsed<Sysctl> {
    detected(input, "sysctl", what).map(|v| match v {
        Data::Sysctl(s) => s,
        other => panic!("{what}: {other:?}"),
    })
}

fn sysfs(input: &[u8], what: &str) -> Parsed<Sysfs> {
    detected(input, "sysfs", what).map(|v| match v {
        Data::Sysfs(s) => s,
        other => panic!("{what}: {other:?}"),
    })
}

fn sections(input: &[u8], what: &str) -> Parsed<Sections> {
    detected(input, "sections", what).map(|v| match v {
        Data::Sections(s) => s,
        other => panic!("{what}: {other:?}"),
    })
}

#[test]
fn manifest_detection() {
    need_shared!();
    let manifest =
        std::fs::read_to_string(format!("{}/corpus/MANIFEST.tsv", support::root().display())).unwrap();
    let mut checked = 0;
    for line in manifest.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let Some((file, expected)) = line.split_once('\t') else { continue };
        let path = format!("{}/corpus/{file}", support::root().display());
        if std::path::Path::new(&path).is_dir() {
            continue;
        }
        let input = read(&path);
        let got = detect(&input);
        let got_id = got.as_ref().map(|d| d.format.id);
        if MINE.contains(&expected) {
            if input.is_empty() {
                // Empty capture files (pt-summary's `*_sysctl.txt` 002/003) carry no
                // content to detect: only their name says sysctl.
                assert_eq!(got_id, None, "{file}");
                continue;
            }
            assert_eq!(got_id, Some(expected), "{file}");
            let d = got.unwrap();
            assert!(d.parsed.value.summary().records() > 0, "{file}");
            assert!(d.parsed.diagnostics.is_empty(), "{file}: {:?}", d.parsed.diagnostics.first());
            checked += 1;
        } else if expected != "-" {
            assert!(
                got_id.is_none_or(|id| !MINE.contains(&id)),
                "{file}: expected {expected}, detected as {got_id:?}"
            );
        }
    }
    assert_eq!(checked, 26);
}

#[test]
fn uname_corpus_and_fixtures() {
    need_shared!();
    let u = uname(&corpus("generated__ctx_uname_a.txt"), "uname -a");
    assert_eq!(u.release, "6.18.44-fc-v669");
    assert_eq!(u.hostname.as_deref(), Some("vm"));
    assert_eq!(u.machine.as_deref(), Some("x86_64"));
    assert_eq!(u.version.as_deref(), Some("#1 SMP PREEMPT_DYNAMIC @0"));
    assert_eq!(u.kernel_version(), Some((6, 18, 44)));

    let u = uname(&corpus("generated__ctx_uname_r.txt"), "uname -r");
    assert_eq!((u.release.as_str(), u.hostname.as_deref()), ("6.18.44-fc-v669", None));

    let u = uname(&corpus("jc__centos-7.7_uname-a.txt"), "centos");
    assert_eq!(u.release, "3.10.0-1062.1.2.el7.x86_64");
    assert_eq!(u.kernel_version(), Some((3, 10, 0)));
    assert_eq!(u.version.as_deref(), Some("#1 SMP Mon Sep 30 14:19:46 UTC 2019"));

    let u = uname(&corpus("jc__generic_uname-a-different-proc.txt"), "different proc");
    assert_eq!((u.release.as_str(), u.machine.as_deref()), ("2.6.18-194.e15PAE", Some("i686")));

    let u = uname(&corpus("jc__debian10_uname-a.txt"), "debian");
    assert_eq!(u.version.as_deref(), Some("#1 SMP Debian 5.7.10-1 (2020-07-26)"));

    let u = uname(&corpus("jc__centos-7.7_uname.txt"), "bare uname");
    assert_eq!((u.sysname.as_deref(), u.release.as_str()), (Some("Linux"), ""));

    let u = uname(&fixture("uname-a.txt"), "fixture -a");
    assert_eq!(u.kernel_version(), Some((6, 18, 44)));
    assert_eq!(uname(&fixture("uname-r.txt"), "fixture -r").release, "6.18.44-fc-v669");
}

#[test]
fn mounts_corpus() {
    need_shared!();
    let m = mounts(&corpus("jc__ubuntu-18.04_mount.txt"), "ubuntu mount");
    let root = m.by_target("/").unwrap();
    assert_eq!((root.source.as_str(), root.fstype.as_str()), ("/dev/sda2", "ext4"));
    assert_eq!(root.option_value("data"), Some("ordered"));
    assert_eq!(root.origin, Origin::Mount);

    let m = mounts(&corpus("jc__centos-7.7_mount.txt"), "centos mount");
    let root = m.by_target("/").unwrap();
    assert_eq!(root.fstype, "xfs");
    assert!(root.has_option("inode64") && root.has_option("noquota"));

    let m = mounts(&corpus("jc__generic_mount-spaces-in-mountpoint.txt"), "spaces");
    assert_eq!(m.entries[0].target, "/media/ingo/Ubuntu 22.04.3 LTS amd64");
    assert_eq!(m.entries[0].option_value("blocksize"), Some("2048"));

    let m = mounts(&corpus("jc__linux-proc__pid_mountinfo.txt"), "mountinfo");
    let root = m.by_target("/").unwrap();
    assert_eq!(root.source, "/dev/mapper/ubuntu--vg-ubuntu--lv");
    assert_eq!((root.fstype.as_str(), root.origin), ("ext4", Origin::MountInfo));
    let dev = m.by_target("/dev").unwrap();
    assert_eq!(dev.option_value("nr_inodes"), Some("487870"), "super options are merged");

    let m = mounts(&corpus("generated__ctx_root_mount.txt"), "root mount");
    assert_eq!(m.entries.len(), 2);
    for e in &m.entries {
        assert_eq!((e.source.as_str(), e.target.as_str(), e.fstype.as_str()), ("/dev/vda", "/", "ext4"));
        assert!(e.has_option("resv_strict") && e.has_option("discard"));
    }

    let m = mounts(&corpus("percona-toolkit__pt-summary_Linux_001_mounted_fs.txt"), "pt-summary 001");
    let root = m.by_target("/").unwrap();
    assert_eq!((root.source.as_str(), root.origin), ("/dev/sda7", Origin::PtSummary));
    assert_eq!(root.option_value("commit"), Some("0"));
    assert!(root.extra.contains(&("size".to_string(), "333G".to_string())));
    let m = mounts(&corpus("percona-toolkit__pt-summary_Linux_005_mounted_fs.txt"), "pt-summary 005");
    assert!(m.by_target("/").unwrap().has_option("inode64"));
}

#[test]
fn mounts_fixtures() {
    let m = mounts(&fixture("mount.txt"), "mount");
    assert!(m.by_target("/").unwrap().has_option("resv_strict"));
    let m = mounts(&fixture("proc-mounts.txt"), "/proc/mounts");
    assert_eq!(m.by_target("/").unwrap().origin, Origin::ProcMounts);
    let m = mounts(&fixture("mountinfo.txt"), "mountinfo");
    assert_eq!(m.by_target("/").unwrap().source, "/dev/vda");
    let tree = mounts(&fixture("findmnt.txt"), "findmnt");
    assert_eq!(tree.entries.len(), 21);
    let cg = tree.by_target("/sys/fs/cgroup/cpu").unwrap();
    assert_eq!((cg.fstype.as_str(), cg.origin), ("cgroup", Origin::Findmnt));
    let sized = mounts(&fixture("findmnt-size.txt"), "findmnt -o ...,SIZE,AVAIL");
    let root = sized.by_target("/").unwrap();
    assert_eq!(root.extra[0], ("SIZE".to_string(), "252G".to_string()));
    assert!(root.has_option("resuid"));

    for f in ["ext4-options-grep.txt", "ext4-options-loop.txt"] {
        let m = mounts(&fixture(f), f);
        assert_eq!(m.entries.len(), 1, "{f}");
        let e = &m.entries[0];
        assert_eq!((e.source.as_str(), e.origin), ("vda", Origin::Ext4Options));
        assert!(e.has_option("dioread_nolock") && e.has_option("delalloc") && !e.has_option("nodelalloc"));
        assert_eq!(e.option_value("commit"), Some("5"));
    }
}

#[test]
fn sysctl_corpus_and_fixtures() {
    need_shared!();
    for f in [
        "generated__ctx_sysctl_vm_dirty.txt",
        "generated__ctx_sysctl_a_vm.txt",
        "generated__ctx_proc_sys_vm_dirty.txt",
    ] {
        let p = sysctl(&corpus(f), f);
        assert_clean(&p, f);
        assert_eq!(p.value.get("vm.dirty_expire_centisecs"), Some("3000"), "{f}");
        assert_eq!(p.value.get_i64("vm.dirty_ratio"), Some(20), "{f}");
        assert_eq!(p.value.get("/proc/sys/vm/dirty_background_ratio"), Some("10"), "{f}");
    }
    let p = sysctl(&corpus("generated__ctx_sysctl_a_vm.txt"), "a_vm");
    assert_eq!(p.value.get("vm.lowmem_reserve_ratio"), Some("256\t256\t32\t0\t0"));

    let p = sysctl(&corpus("jc__centos-7.7_sysctl-a.txt"), "centos");
    assert_clean(&p, "centos");
    assert_eq!(p.value.get("dev.cdrom.info"), Some("CD-ROM information, Id: cdrom.c 3.20 2003/12/17"));
    assert!(p.value.entries.iter().filter(|e| e.1 == "dev.cdrom.info").count() > 10);

    let p = sysctl(&corpus("percona-toolkit__pt-summary_Linux_001_sysctl.txt"), "pt 001");
    assert_clean(&p, "pt 001");
    assert_eq!(p.value.get("kernel.sched_latency_ns"), Some("12000000"));
    let p = sysctl(&corpus("percona-toolkit__pt-summary_Linux_005_sysctl.txt"), "pt 005");
    assert_eq!(p.value.get("fs.file-nr"), Some("1824\t0\t380072"));

    let p = sysctl(&fixture("sysctl-a.txt"), "fixture root");
    assert_clean(&p, "fixture root");
    assert_eq!(p.value.entries.len(), 1304);
    assert_eq!(p.value.get("vm.dirty_writeback_centisecs"), Some("500"));

    let raw = fixture("sysctl-a-nonroot.txt");
    let p = sysctl(&raw, "fixture non-root");
    let messages = String::from_utf8_lossy(&raw).lines().filter(|l| l.starts_with("sysctl: ")).count();
    assert!(messages > 5);
    assert_eq!(p.diagnostics.len(), messages);
    assert!(p.diagnostics.iter().all(|d| d.kind == DiagKind::ToolMessage));
    assert_eq!(p.diagnostics[0].text, "sysctl: permission denied on key 'kernel.cad_pid'");
    assert_eq!(p.value.get("vm.dirty_ratio"), Some("20"));

    let p = sysctl(&fixture("proc-sys-vm-dirty.txt"), "proc sys");
    assert_eq!(p.value.get("vm.dirty_expire_centisecs"), Some("3000"));
}

#[test]
fn sysfs_corpus_and_fixtures() {
    need_shared!();
    let p = sysfs(&corpus("generated__ctx_sysblock_grep.txt"), "grep");
    assert_clean(&p, "grep");
    assert_eq!(p.value.get("vda", "read_ahead_kb"), Some("8192"));
    assert_eq!(p.value.get("zram0", "optimal_io_size"), Some("4096"));
    assert_eq!(p.value.get("vda", "minimum_io_size"), Some("4096"));

    let p = sysfs(&corpus("generated__ctx_sysblock_loop.txt"), "loop");
    assert_clean(&p, "loop");
    assert_eq!(p.value.get("vda", "scheduler").and_then(active_choice), Some("mq-deadline"));
    assert_eq!(p.value.get("vda", "rotational"), Some("1"));
    assert_eq!(p.value.get("zram0", "scheduler"), Some(""));
    assert_eq!(p.value.devices().len(), 10);

    let p = sysfs(&corpus("generated__ctx_thp.txt"), "thp");
    assert_eq!(p.value.entries[0].attr, "enabled");
    assert_eq!(active_choice(&p.value.entries[0].value), Some("madvise"));

    let p = sysfs(&fixture("sysblock-grep.txt"), "fixture grep");
    // `grep -H . /sys/block/*/queue/*` also meets the `iosched` directory.
    let texts: Vec<_> = p.diagnostics.iter().map(|d| (d.kind, d.text.as_str())).collect();
    assert_eq!(texts, vec![(DiagKind::ToolMessage, "grep: /sys/block/vda/queue/iosched: Is a directory")]);
    assert_eq!(p.value.get("vda", "read_ahead_kb"), Some("8192"));
    assert_eq!(p.value.get("vda", "nr_requests"), Some("256"));
    assert_eq!(
        p.value
            .entries
            .iter()
            .find(|e| e.attr == "nr_requests" && e.device.as_deref() == Some("vda"))
            .unwrap()
            .line,
        414
    );

    let p = sysfs(&fixture("sysblock-grep-errors.txt"), "grep errors");
    assert_eq!(p.diagnostics.len(), 3);
    assert!(p.diagnostics.iter().all(|d| d.kind == DiagKind::ToolMessage));
    assert_eq!(p.value.get("zram0", "read_ahead_kb"), Some("128"));

    let p = sysfs(&fixture("sysblock-loop-cat.txt"), "loop cat");
    assert_eq!(p.diagnostics.iter().map(|d| d.line).collect::<Vec<_>>(), vec![7, 9]);
    assert_eq!(p.value.get("vda", "iosched/fifo_batch"), Some("16"));
}

fn bundle_system_info(bundle: &str) {
    let what = format!("{bundle}/system-info.txt");
    let p = sections(&read(&format!("{}/bundles/{what}", support::root().display())), &what);
    // Sections nobody parses are listed in the variant, not diagnosed; every parsed line is clean.
    assert!(p.diagnostics.is_empty(), "{what}: {:?}", p.diagnostics);
    assert!(p.value.variant().get("text_sections").is_some_and(|t| t.contains("lsblk")), "{what}");
    assert_eq!(p.skipped_lines, 0, "{what}");
    let s = &p.value;

    let unames: Vec<&Uname> = s
        .find("uname")
        .map(|d| match d {
            Data::Uname(u) => u,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(unames.len(), 2, "{what}");
    assert!(unames.iter().all(|u| u.release == "6.18.44-fc-v669"), "{what}");
    assert_eq!(unames[0].line, 6);
    assert_eq!(unames[1].line, 8);

    let Some(Data::Sysctl(sc)) = s.find("sysctl").next() else { panic!("{what}: no sysctl") };
    assert_eq!(sc.get("vm.dirty_expire_centisecs"), Some("3000"), "{what}");
    assert_eq!(sc.get("vm.dirty_writeback_centisecs"), Some("500"), "{what}");
    let paranoid = s.find("sysctl").find_map(|d| match d {
        Data::Sysctl(x) => x.get("kernel.perf_event_paranoid"),
        _ => None,
    });
    assert_eq!(paranoid, Some("2"), "{what}");

    let mounts: Vec<&Mounts> = s
        .find("mounts")
        .map(|d| match d {
            Data::Mounts(m) => m,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(mounts.len(), 3, "{what}: two findmnt sections + /proc/fs/ext4");
    let root = mounts[0].by_target("/").unwrap();
    assert_eq!((root.source.as_str(), root.fstype.as_str(), root.line), ("/dev/vda", "ext4", 27));
    assert_eq!(root.options, ["rw", "relatime", "discard", "resv_strict", "resuid=65534", "resgid=65534"]);
    assert_eq!(mounts[1].by_target("/").unwrap().extra[0], ("SIZE".to_string(), "252G".to_string()));
    let ext4 = &mounts[2].entries[0];
    assert_eq!((ext4.source.as_str(), ext4.origin), ("vda", Origin::Ext4Options));
    assert!(ext4.has_option("dioread_nolock") && ext4.has_option("delalloc"), "{what}");

    let Some(Data::Sysfs(fs)) = s.find("sysfs").next() else { panic!("{what}: no sysfs") };
    assert_eq!(fs.get("vda", "read_ahead_kb"), Some("8192"), "{what}");
    assert_eq!(fs.get("vda", "scheduler").and_then(active_choice), Some("mq-deadline"));
    assert_eq!(fs.get("vda", "write_cache"), Some("write back"));
    let rak =
        fs.entries.iter().find(|e| e.device.as_deref() == Some("vda") && e.attr == "read_ahead_kb").unwrap();
    assert_eq!(rak.line, 122, "{what}: whole-file line number");

    let lsblk = s.by_title("lsblk").unwrap();
    assert_eq!(lsblk.format, None);
    assert!(lsblk.text.contains("vda   254:0    256G disk"));
}

#[test]
fn system_info_sections() {
    need_shared!();
    for b in ["s1_mmap_writeback", "s2a_mariadb_durable", "s3_buffered_dd", "s4_locale_variants"] {
        bundle_system_info(b);
    }
}

#[test]
fn pt_summary_sections() {
    need_shared!();
    let p = iosift_parsers::sections::Fmt::parse(&corpus("percona-toolkit__pt-summary_Linux_output_002.txt"));
    let s = &p.value;
    assert_eq!(s.sections.first().map(|x| x.line), Some(0), "preamble");
    let Some(Data::Mounts(m)) = s.find("mounts").next() else { panic!("no mounts") };
    let boot = m.by_target("/boot").unwrap();
    assert_eq!((boot.source.as_str(), boot.fstype.as_str(), boot.line), ("/dev/hda1", "ext3", 29));
    let Some(Data::Sysfs(f)) = s.find("sysfs").next() else { panic!("no sysfs") };
    assert_eq!(f.get("hda", "scheduler").and_then(active_choice), Some("cfq"));

    let p = iosift_parsers::sections::Fmt::parse(&corpus("percona-toolkit__pt-summary_Linux_output_007.txt"));
    let Some(Data::Mounts(m)) = p.value.find("mounts").next() else { panic!("no mounts") };
    let nfs = m.by_target("/srv/ftp").unwrap();
    assert_eq!((nfs.source.as_str(), nfs.fstype.as_str()), ("10.10.8.124:/srv/ftp", "nfs4"));
    assert_eq!(nfs.option_value("rsize"), Some("524288"));
    let Some(Data::Sysfs(f)) = p.value.find("sysfs").next() else { panic!("no sysfs") };
    assert_eq!(f.get("dm-0", "nr_requests"), Some("128"));
    assert_eq!(f.get("nvme0n1", "nr_requests"), Some("1023"));
}

/// Real pt-summary and pt-mysql-summary reports of this VM (fixtures/context/README.md): their
/// sections are read as the formats they hold and nothing else (pt-summary's inode table is not
/// `sadf -p`, its rounded vmstat table is not vmstat's output).
#[test]
fn pt_summary_sections_of_this_vm_without_false_formats() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/context");
    let p = iosift_parsers::sections::Fmt::parse(&std::fs::read(format!("{dir}/pt-summary-vm.txt")).unwrap());
    assert_eq!(p.skipped_lines, 0, "{:?}", p.diagnostics);
    let mut ids: Vec<&str> = p.value.sections.iter().filter_map(|x| x.format).collect();
    ids.sort();
    assert_eq!(ids, ["mounts", "ps", "sysfs"]);
    let Some(Data::Sysfs(f)) = p.value.find("sysfs").next() else { panic!("no sysfs") };
    // `         vda | [mq-deadline] 256`
    assert_eq!(f.get("vda", "scheduler").and_then(active_choice), Some("mq-deadline"));
    let m = iosift_parsers::sections::Fmt::parse(
        &std::fs::read(format!("{dir}/pt-mysql-summary-vm.txt")).unwrap(),
    );
    assert_eq!(m.skipped_lines, 0, "{:?}", m.diagnostics);
    assert!(m.value.sections.iter().all(|x| x.format.is_none()), "pt-mysql-summary's sections are text");
}

/// Every parser of this helper on every corpus file (and cut copies of it):
/// must not panic, and every diagnostic must point at a real line.
#[test]
fn every_parser_survives_the_corpus() {
    need_shared!();
    use iosift_parsers::{
        mounts, mysql_threads, mysql_variables, mysqladmin_ext, sections, sysctl, sysfs, uname,
    };
    fn check<F: Format>(input: &[u8], what: &str) {
        let _ = F::sniff(&input[..input.len().min(1024)]);
        let p = F::parse(input);
        assert!(p.diagnostics.iter().all(|d| d.line >= 1 && d.line <= p.lines.max(1)), "{} on {what}", F::ID);
        assert!(p.skipped_lines <= p.lines, "{} on {what}", F::ID);
    }
    let mut files = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(format!("{}/corpus", support::root().display()))];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    assert!(files.len() > 300);
    for f in files {
        let input = read(f.to_str().unwrap());
        let what = f.display().to_string();
        // Cut copies start or end mid-line (and mid-character); big files are checked whole only.
        let cuts: Vec<&[u8]> = if input.len() > 256 * 1024 {
            vec![&input[..]]
        } else {
            vec![&input[..], &input[..input.len().min(777)], &input[input.len() / 3..]]
        };
        for cut in cuts {
            check::<uname::Fmt>(cut, &what);
            check::<mounts::Fmt>(cut, &what);
            check::<sysctl::Fmt>(cut, &what);
            check::<sysfs::Fmt>(cut, &what);
            check::<sections::Fmt>(cut, &what);
            check::<mysql_variables::Fmt>(cut, &what);
            check::<mysql_threads::Fmt>(cut, &what);
            check::<mysqladmin_ext::Fmt>(cut, &what);
        }
    }
    let junk: &[&[u8]] = &[
        b"### \n### x\n\xff\xfe\n# ####\n# a ####\n",
        b"== \n==\n== /proc/fs/ext4//options\n\\0\\x\\07\n",
        b"| \n|\n||\n+-\n+--+\n*** . row ***\n*************************** 1. row ***************************\n:\n",
        b"TARGET\n\xe2\x94\x9c\xe2\x94\x80\n\xe2\x94\x9c\n TARGET SOURCE\n\xe2\x94\x9c\xe2\x94\x80/a b c d e f\n",
        b"TS 1\nVariable_name\tValue\n\tx\nA\t\nTHREAD_ID\tNAME\n1\t\n",
        b"x on  type  ()\n on  type x (\n1 2 3:4 - \n1 2 3:4 a b c - \n/sys/:\n:\n",
        b"Linux\nLinux a 1.2\n1.\n.1\n99999999999999999999.1\n",
    ];
    for j in junk {
        check::<uname::Fmt>(j, "junk");
        check::<mounts::Fmt>(j, "junk");
        check::<sysctl::Fmt>(j, "junk");
        check::<sysfs::Fmt>(j, "junk");
        check::<sections::Fmt>(j, "junk");
        check::<mysql_variables::Fmt>(j, "junk");
        check::<mysql_threads::Fmt>(j, "junk");
        check::<mysqladmin_ext::Fmt>(j, "junk");
    }
}
