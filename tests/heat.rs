//! The perf heat map of the page (issue 37), on real samples: the counts it embeds
//! equal the samples counted straight from the raw `perf script` file (sample
//! header lines, placed on the wall clock with the file's own `reference time`
//! header), per second and in total; in headless Chromium (skipped, visibly, when
//! `chromium` is not on PATH) the map draws a cell for every 100 ms with samples,
//! and a dragged range redraws the flame graph with that range's samples. Hostile
//! command and frame names reach the page only as escaped text.

use crate::common;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(name).join("capture")
}

/// The page of a sample, written into `dir`.
fn page(name: &str, dir: &Path) -> String {
    let b = iosift::bundle::load(&[sample(name)], &iosift::bundle::Limits::default()).unwrap();
    let r = iosift::analyze::analyze(&b, &iosift::pipeline::Options::default());
    iosift::report::write_report(&r, dir).unwrap();
    std::fs::read_to_string(dir.join("index.html")).unwrap()
}

/// The value of attribute `name` of the first element of `html` that has it, unescaped.
fn attr(html: &str, name: &str) -> String {
    let key = format!(" {name}=\"");
    let start = html.find(&key).unwrap_or_else(|| panic!("{name} missing")) + key.len();
    let end = start + html[start..].find('"').unwrap();
    html[start..end].replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// The samples of a raw perf script, as wall-clock 100 ms buckets
/// (`floor(ts * 10) + round((TOD - perf time) * 10)`, the map's rule) -> samples.
/// Samples are the header lines (not indented, not comments, `... <time>: <period> <event>:`)
/// of the profile's `cpu-clock` event, but those of exited tasks (below).
fn raw_buckets(file: &Path) -> BTreeMap<i64, u64> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(file).unwrap()).read_to_string(&mut text).unwrap();
    let reference = text.lines().find(|l| l.starts_with("# reference time:")).expect("perf clock data");
    // `# reference time: 2026-11-29 21:10:18.775706 = 1795986618.775706 (TOD) = 1316.113904224 (monotonic)`
    let nums: Vec<f64> = reference
        .split(" = ")
        .skip(1)
        .map(|p| p.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    let shift = ((nums[0] - nums[1]) * 10.0).round() as i64;
    let mut out = BTreeMap::new();
    for l in text.lines() {
        if l.is_empty()
            || l.starts_with('#')
            || l.starts_with(char::is_whitespace)
            || !l.contains(" cpu-clock")
        {
            continue;
        }
        // perf prints a task that has exited as `:-1 -1/-1` (or `:-1 29024/-1`): the parser
        // takes the start of such a header for the command and reads no time stamp from it
        // (2 of ix_idle_a's samples; they are in no per-second series of perf either).
        if l.split_whitespace().any(|w| w.contains('/') && w.split('/').any(|x| x == "-1")) {
            continue;
        }
        let ts = l.split_whitespace().find(|w| w.ends_with(':') && w.contains('.')).expect("a time stamp");
        let ts: f64 = ts.trim_end_matches(':').parse().unwrap();
        *out.entry((ts * 10.0).floor() as i64 + shift).or_insert(0) += 1;
    }
    out
}

/// The map's first second, columns and counts per cell (`col * 10 + row`).
fn embedded(html: &str) -> (i64, usize, Vec<u64>) {
    let heat = &html[html.find("class=\"hm\"").expect("a heat map")..];
    let t0: i64 = attr(heat, "data-t0").parse().unwrap();
    let cols: usize = attr(heat, "data-cols").parse().unwrap();
    let v: serde_json::Value = serde_json::from_str(&attr(heat, "data-heat")).unwrap();
    let c: Vec<u64> = v["c"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    assert_eq!(c.len(), cols * 10, "ten 100 ms cells per column");
    (t0, cols, c)
}

#[test]
fn embedded_counts_are_the_raw_samples_per_second() {
    // ix_idle_a: 452 of its 17,729 samples have no call chain; they count on the map too.
    for name in ["mariadb_fsync_durable", "replica_io_bound", "mmap_large_folio", "ix_idle_a"] {
        let tmp = tempfile::tempdir().unwrap();
        let html = page(name, tmp.path());
        let (t0, cols, c) = embedded(&html);
        let raw = raw_buckets(&sample(name).join("perf-profile.script.txt.gz"));
        let mut per_sec: BTreeMap<i64, u64> = BTreeMap::new();
        for (b, n) in &raw {
            *per_sec.entry(b.div_euclid(10) - t0).or_default() += n;
        }
        let total: u64 = raw.values().sum();
        assert!(per_sec.keys().all(|&s| s >= 0 && s < cols as i64), "{name}: every sample is on the map");
        for col in 0..cols {
            let got: u64 = c[col * 10..col * 10 + 10].iter().sum();
            assert_eq!(got, per_sec.get(&(col as i64)).copied().unwrap_or(0), "{name}: second {col}");
        }
        // Cell by cell too.
        for (b, n) in &raw {
            assert_eq!(c[(b - t0 * 10) as usize], *n, "{name}: bucket {b}");
        }
        assert_eq!(c.iter().sum::<u64>(), total);
        assert!(
            html.contains(&format!("perf-profile.script.txt.gz: {total} samples of cpu-clock")),
            "{name}: caption"
        );
    }
}

#[test]
fn a_capture_without_perf_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let html = page("ix_idle_b_noperf", tmp.path());
    assert!(html.contains("No perf script output in the capture."));
    assert!(!html.contains("class=\"hm\""));
}

/// A perf script whose command and frame names are hostile: the map is drawn, and the
/// names reach the page's JSON escaped (no markup, controls and overrides as visible escapes).
#[test]
fn hostile_names_stay_text() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("capture");
    std::fs::create_dir_all(&cap).unwrap();
    let mut text = String::from(
        "# ========\n# clockid: monotonic (1)\n\
         # reference time: 2026-11-29 21:10:18.775706 = 1795986618.775706 (TOD) = 1316.113904224 (monotonic)\n# ========\n",
    );
    for k in 0..30 {
        text.push_str(&format!(
            "<img src=x>\u{202e}gpj 22054/{} {:.6}: 20408163 cpu-clock:pppH:\n\
             \tffffffff813a4413 </script><b>x\u{7}+0x93 ([kernel.kallsyms])\n\
             \tffffffff81711bbb do_fsync+0x3b ([kernel.kallsyms])\n\n",
            23000 + k % 3,
            1320.0 + f64::from(k) * 0.25
        ));
    }
    std::fs::write(cap.join("perf-profile.script.txt"), text).unwrap();
    let b = iosift::bundle::load(&[cap], &iosift::bundle::Limits::default()).unwrap();
    let r = iosift::analyze::analyze(&b, &iosift::pipeline::Options::default());
    assert_eq!(r.perf_heat.len(), 1, "a heat map of the perf file");
    assert_eq!(r.perf_heat[0].samples, 30);
    let out = dir.path().join("report");
    iosift::report::write_report(&r, &out).unwrap();
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!html.contains("<img src=x>") && !html.contains("</script><b>"), "no markup from the capture");
    assert!(!html.contains(['\u{202e}', '\u{7}']), "no raw override or control");
    let (_, _, c) = embedded(&html);
    assert_eq!(c.iter().sum::<u64>(), 30);
    let heat = &html[html.find("class=\"hm\"").unwrap()..];
    let v: serde_json::Value = serde_json::from_str(&attr(heat, "data-heat")).unwrap();
    let frames: Vec<&str> = v["f"].as_str().unwrap().split('\n').collect();
    assert!(frames.contains(&"<img_src=x>\\u{202e}gpj"), "{frames:?}");
    assert!(frames.contains(&"</script><b>x\\x07"), "{frames:?}");
}

/// Driven in the page after load: reads the first heat map, drags from cell `A` to cell
/// `B`, then double-clicks, and writes what it saw into `<pre id="test-out">` as JSON.
const DRIVER: &str = r#"<script>
(function(){
var out={};
try{
  var m=document.querySelector("div.hm"),ov=m.querySelector("rect.hov"),fg=document.getElementById(m.id+"-fg");
  var cols=+m.dataset.cols,rows=+m.dataset.rows,d=JSON.parse(m.dataset.heat);
  out.cols=cols;out.rows=rows;out.live=m.classList.contains("live");
  out.nonzero=d.c.filter(function(x){return x>0;}).length;out.total=d.c.reduce(function(a,b){return a+b;},0);
  var drawn=0;[].slice.call(m.querySelectorAll("g.cells path[data-l]")).forEach(function(p){
    (p.getAttribute("d").match(/h\d+v1/g)||[]).forEach(function(h){drawn+=parseInt(h.slice(1),10);});});
  out.drawn=drawn;
  out.initial=[fg.dataset.range,+fg.dataset.samples];
  var r=ov.getBoundingClientRect();
  function ev(type,cell){var col=Math.floor(cell/rows),row=cell%rows;
    var x=r.left+(col+0.5)/cols*r.width,y=r.top+(row+0.5)/rows*r.height;
    ov.dispatchEvent(new MouseEvent(type,{clientX:x,clientY:y,pageX:x,pageY:y,bubbles:true}));}
  ev("mousedown",B);ev("mousemove",A);ev("mouseup",A);
  out.range=fg.dataset.range;out.samples=+fg.dataset.samples;
  out.frames=fg.querySelectorAll("svg rect").length;
  out.heading=fg.querySelector("p.hft").textContent;
  out.outline=m.querySelector("path.hsel").getAttribute("d");
  out.tip=document.getElementById("tip").textContent;
  ov.dispatchEvent(new MouseEvent("dblclick",{bubbles:true}));
  out.reset=[fg.dataset.range,+fg.dataset.samples];
}catch(e){out.error=String(e&&e.stack||e);}
var pre=document.createElement("pre");pre.id="test-out";pre.textContent=JSON.stringify(out);document.body.appendChild(pre);
})();
</script>"#;

#[test]
fn chromium_heat_map_selects_a_range() {
    let Some(chromium) = common::on_path("chromium") else {
        common::support::skip("chromium not found (CI installs Debian's chromium)");
        return;
    };
    let name = "mariadb_fsync_durable";
    let tmp = tempfile::tempdir().unwrap();
    let html = page(name, tmp.path());
    let (t0, cols, _) = embedded(&html);
    let raw = raw_buckets(&sample(name).join("perf-profile.script.txt.gz"));
    let total: u64 = raw.values().sum();
    // A range from the 4th tenth of the 11th second to the 7th tenth of the 21st, dragged backwards.
    let (a, b) = (10 * 10 + 3, 20 * 10 + 6);
    let in_range: u64 = raw.iter().filter(|(k, _)| (a..=b).contains(&(**k - t0 * 10))).map(|(_, n)| n).sum();
    assert!(in_range > 0 && in_range < total, "the range holds some samples: {in_range} of {total}");
    let driver = DRIVER.replace("ev(\"mousedown\",B)", &format!("ev(\"mousedown\",{b})")).replace(
        "ev(\"mousemove\",A);ev(\"mouseup\",A)",
        &format!("ev(\"mousemove\",{a});ev(\"mouseup\",{a})"),
    );
    let (_, out) = common::drive(&chromium, tmp.path(), &html, &driver);
    // The map: one column per second, ten rows, a drawn cell for every 100 ms with samples.
    assert_eq!(out["cols"].as_u64(), Some(cols as u64));
    assert_eq!(out["rows"], 10);
    assert_eq!(out["live"], true);
    assert_eq!(out["total"].as_u64(), Some(total), "{out}");
    assert_eq!(out["nonzero"].as_u64(), Some(raw.len() as u64), "{out}");
    assert_eq!(out["drawn"], out["nonzero"], "every cell with samples is drawn");
    // At first the flame graph is the whole map's.
    assert_eq!(out["initial"], serde_json::json!([format!("0-{}", cols * 10 - 1), total]));
    // The dragged range: its cells, its samples, a flame graph of frames.
    assert_eq!(out["range"], format!("{a}-{b}"));
    assert_eq!(out["samples"].as_u64(), Some(in_range), "{out}");
    assert!(out["frames"].as_u64().unwrap() > 3, "{out}");
    let heading = out["heading"].as_str().unwrap();
    assert!(heading.contains(&format!(": {in_range} samples")), "{heading}");
    assert!(heading.contains(".3 to ") && heading.contains(".6 (+100 ms) UTC"), "{heading}");
    assert!(out["outline"].as_str().unwrap().starts_with("M10 3h1v7h-1z"), "{out}");
    assert!(out["tip"].as_str().unwrap().ends_with(" samples"), "{out}");
    // Double-click: the whole map again.
    assert_eq!(out["reset"], out["initial"]);
}
