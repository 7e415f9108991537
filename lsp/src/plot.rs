//! `pir stats --plot FILE.svg`: each kernel's profile drawn as plain SVG (SPEC §10.1, §10.2):
//! one bar per engine with its busy time against the lower bound (the bottleneck marked),
//! and beneath, the SBUF and PSUM occupancy over the kernel's ops in source order (the
//! §10.1 live bytes per partition at each op), with the capacity line and the peak op
//! marked, red when over the capacity (P416).

use std::fmt::Write as _;

use analysis::KernelStats;
use analysis::cost::{percent, show_time};
use analysis::resources::{Peak, group};

/// One kernel to draw: its file's name, its stats, its occupancy at each op (SBUF, PSUM)
/// and the line of each peak's op.
pub struct Panel<'a> {
    /// The file, as `pir stats` names it.
    pub file: &'a str,
    /// The kernel's stats on the target.
    pub stats: &'a KernelStats,
    /// SBUF then PSUM bytes per partition at each op.
    pub occupancy: &'a [Vec<u64>; 2],
    /// The 1-based line of the SBUF and PSUM peak ops.
    pub peak_lines: [Option<u32>; 2],
}

const WIDTH: u32 = 960;
const LEFT: u32 = 90;
const PLOT: u32 = 700;
const BAR: u32 = 22;
const CHART: u32 = 110;

/// Text escaped for SVG.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG document of `panels`, stacked.
pub fn svg(panels: &[Panel<'_>]) -> String {
    let mut body = String::new();
    let mut y = 10;
    for panel in panels {
        y = draw(panel, y, &mut body) + 30;
    }
    if panels.is_empty() {
        body.push_str(r##"<text x="20" y="40" class="t">no kernel</text>"##);
        y = 60;
    }
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{y}" viewBox="0 0 {WIDTH} {y}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">
<style>.t{{font-size:14px;font-weight:bold}} .s{{fill:#555}} .bar{{fill:#4c78a8}} .bound{{fill:#e45756}} .cap{{stroke:#555;stroke-dasharray:4 3}} .occ{{fill:none;stroke:#4c78a8;stroke-width:1.5}} .over{{fill:none;stroke:#d62728;stroke-width:1.5}} .frame{{fill:#fafafa;stroke:#ccc}}</style>
<rect width="100%" height="100%" fill="white"/>
{body}</svg>
"##
    )
}

/// Draws one panel from `y`; returns where it ends.
fn draw(panel: &Panel<'_>, mut y: u32, out: &mut String) -> u32 {
    let stats = panel.stats;
    let cost = &stats.cost;
    let bound = match cost.bottleneck {
        Some(b) => format!(
            "{} ≥ {}, {}-bound",
            cost.target,
            show_time(cost.lower_bound_ns),
            b.bir_name()
        ),
        None => format!("{}: no estimate", cost.target),
    };
    y += 18;
    let _ = writeln!(
        out,
        r##"<text x="10" y="{y}" class="t">@{} — {}</text><text x="{}" y="{y}" text-anchor="end" class="s">{}</text>"##,
        esc(&stats.name),
        esc(&bound),
        WIDTH - 10,
        esc(panel.file)
    );
    y += 12;
    // The bars: busy time against the bound (the bound is the full width).
    let full = cost.lower_bound_ns.max(1);
    for e in &cost.engines {
        let w = ((u128::from(e.ns) * u128::from(PLOT)) / u128::from(full)) as u32;
        let class = if Some(e.engine) == cost.bottleneck {
            "bound"
        } else {
            "bar"
        };
        let mark = if Some(e.engine) == cost.bottleneck {
            " ◀ bound"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            r##"<text x="{}" y="{}" text-anchor="end">{}</text><rect x="{LEFT}" y="{}" width="{}" height="{}" class="{class}"/><text x="{}" y="{}">{} · {}{mark}</text>"##,
            LEFT - 8,
            y + 15,
            e.engine.bir_name(),
            y + 2,
            w.max(1),
            BAR - 4,
            LEFT + w.max(1) + 6,
            y + 15,
            show_time(e.ns),
            percent(e.ns, cost.lower_bound_ns),
        );
        y += BAR;
    }
    if cost.engines.is_empty() {
        let _ = writeln!(
            out,
            r##"<text x="{LEFT}" y="{}" class="s">no estimated instruction</text>"##,
            y + 15
        );
        y += BAR;
    }
    let _ = writeln!(
        out,
        r##"<line x1="{}" y1="{}" x2="{}" y2="{y}" class="cap"/>"##,
        LEFT + PLOT,
        y - BAR * cost.engines.len().max(1) as u32,
        LEFT + PLOT
    );
    // The occupancy over the ops.
    for ((peak, series), line) in stats
        .peaks()
        .into_iter()
        .zip(panel.occupancy)
        .zip(panel.peak_lines)
    {
        y += 14;
        y = occupancy(peak, series, line, y, out);
    }
    y
}

/// One memory's occupancy chart from `y`; returns where it ends.
fn occupancy(peak: &Peak, series: &[u64], line: Option<u32>, y: u32, out: &mut String) -> u32 {
    let memory = peak.memory.name().to_uppercase();
    let top = y + 16;
    let scale = peak.capacity.max(peak.bytes).max(1) as f64 * 1.05;
    let y_of = |bytes: u64| top as f64 + CHART as f64 * (1.0 - bytes as f64 / scale);
    let mut title = format!(
        "{memory}: peak {} of {} bytes per partition",
        group(peak.bytes),
        group(peak.capacity)
    );
    if let Some(op) = &peak.op {
        let at = line.map(|l| format!("line {l} ")).unwrap_or_default();
        let _ = write!(title, " at {at}(#{} {})", op.op_id, op.class);
    }
    if peak.exceeds() {
        title.push_str(" — over capacity (P416)");
    }
    let _ = writeln!(
        out,
        r##"<text x="{LEFT}" y="{}">{}</text><rect x="{LEFT}" y="{top}" width="{PLOT}" height="{CHART}" class="frame"/>"##,
        y + 11,
        esc(&title)
    );
    let cap = y_of(peak.capacity);
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT}" y1="{cap:.1}" x2="{}" y2="{cap:.1}" class="cap"/><text x="{}" y="{:.1}" text-anchor="end" class="s">capacity</text>"##,
        LEFT + PLOT,
        LEFT - 6,
        cap + 4.0
    );
    if !series.is_empty() {
        // The highest value per pixel column, as a step line.
        let n = series.len();
        let columns = (PLOT as usize).min(n.max(1));
        let mut points = String::new();
        for c in 0..columns {
            let (from, to) = (
                c * n / columns,
                ((c + 1) * n / columns).max(c * n / columns + 1),
            );
            let high = series
                .get(from..to.min(n))
                .and_then(|s| s.iter().max())
                .copied();
            let x0 = LEFT as f64 + PLOT as f64 * c as f64 / columns as f64;
            let x1 = LEFT as f64 + PLOT as f64 * (c + 1) as f64 / columns as f64;
            let yv = y_of(high.unwrap_or(0));
            let _ = write!(points, "{x0:.1},{yv:.1} {x1:.1},{yv:.1} ");
        }
        let class = if peak.exceeds() { "over" } else { "occ" };
        let _ = writeln!(
            out,
            r##"<polyline points="{}" class="{class}"/>"##,
            points.trim_end()
        );
        if let Some(at) = series.iter().position(|&b| b == peak.bytes && b > 0) {
            let x = LEFT as f64 + PLOT as f64 * (at as f64 + 0.5) / n as f64;
            let color = if peak.exceeds() { "#d62728" } else { "#e45756" };
            let _ = writeln!(
                out,
                r##"<circle cx="{x:.1}" cy="{:.1}" r="4" fill="{color}"/>"##,
                y_of(peak.bytes)
            );
        }
        let _ = writeln!(
            out,
            r##"<text x="{LEFT}" y="{}" class="s">op 1</text><text x="{}" y="{}" text-anchor="end" class="s">op {}</text>"##,
            top + CHART + 12,
            LEFT + PLOT,
            top + CHART + 12,
            group(n as u64)
        );
    }
    top + CHART + 14
}
