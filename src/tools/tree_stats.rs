//! `tree-stats`: what alpha-beta, move ordering, the transposition table and PVS save over
//! plain minimax, measured on real trees.
//!
//! Every algorithm is the engine's one search core ([`Searcher::search_root`]) with some
//! [`SearchFeatures`] switched off; plain minimax is the core with all of them off, so it
//! visits the whole tree (549,946 nodes for tic-tac-toe from the empty board, root
//! included). Each measurement is one search from a fresh table and fresh ordering tables,
//! to a fixed depth with the full window, on the caller's thread: not through the
//! [`ThreadPool`](crate::search::ThreadPool), whose iterative deepening and helper threads
//! would blur the counts. The tool collects numbers; the command line prints them as a
//! table, CSV or an SVG chart.

use std::fmt::Write as _;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::search::score::INFINITY;
use crate::search::{
    Game, MoveList, Score, SearchFeatures, SearchSettings, SearchStats, Searcher,
    TranspositionTable,
};

use super::solve::describe;
use crate::games::setup::{position_with, MoveTokens};
use crate::games::{GameKind, GameVisitor, Registered};

/// One algorithm of the comparison: a name and the core's switches.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Algorithm {
    /// Short name for tables and legends.
    pub name: &'static str,
    /// The switches of the search core.
    pub features: SearchFeatures,
}

/// The algorithms compared, from plain minimax to the engine's full search.
pub const ALGORITHMS: [Algorithm; 4] = [
    Algorithm {
        name: "minimax",
        features: SearchFeatures::MINIMAX,
    },
    Algorithm {
        name: "alpha-beta",
        features: SearchFeatures {
            alpha_beta: true,
            ordering: false,
            learnt_ordering: false,
            transposition: false,
            pvs: false,
            game_pruning: false,
        },
    },
    Algorithm {
        name: "alpha-beta+ordering",
        features: SearchFeatures {
            alpha_beta: true,
            ordering: true,
            learnt_ordering: true,
            transposition: false,
            pvs: false,
            game_pruning: false,
        },
    },
    Algorithm {
        name: "pvs+ordering+tt",
        // Every exact part of the engine's search; the game's own pruning (Ataxx's) would
        // change values, not only the tree.
        features: SearchFeatures {
            game_pruning: false,
            ..SearchFeatures::ALL
        },
    },
];

/// What one algorithm did on one position (or on a set of positions, summed).
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// The algorithm's name.
    pub algorithm: &'static str,
    /// The value found (`None` for sums over several positions).
    pub value: Option<Score>,
    /// The search's counters.
    pub stats: SearchStats,
    /// Time taken.
    pub elapsed: Duration,
}

/// Searches `root` to `depth` once with `features`, from fresh tables.
pub fn measure_one<G: Game>(
    root: &G,
    depth: u32,
    features: SearchFeatures,
    hash_mb: usize,
) -> (Score, SearchStats, Duration) {
    let table = if features.transposition { hash_mb } else { 0 };
    let mut searcher = Searcher::<G>::new(Arc::new(TranspositionTable::new(table)));
    searcher.configure(SearchSettings {
        features,
        ..SearchSettings::default()
    });
    let started = Instant::now();
    let score = searcher
        .search_root(root, depth, -INFINITY, INFINITY, None)
        .unwrap_or_default();
    (score, searcher.stats(), started.elapsed())
}

/// Every algorithm of [`ALGORITHMS`] on `root` to `depth`.
pub fn measure<G: Game>(root: &G, depth: u32, hash_mb: usize) -> Vec<Measurement> {
    ALGORITHMS
        .iter()
        .map(|algorithm| {
            let (value, stats, elapsed) = measure_one(root, depth, algorithm.features, hash_mb);
            Measurement {
                algorithm: algorithm.name,
                value: Some(value),
                stats,
                elapsed,
            }
        })
        .collect()
}

/// Adds `more` to `total` algorithm by algorithm (values are dropped).
pub fn accumulate(total: &mut Vec<Measurement>, more: &[Measurement]) {
    if total.is_empty() {
        total.extend(more.iter().map(|m| Measurement {
            value: None,
            ..m.clone()
        }));
        return;
    }
    for (sum, m) in total.iter_mut().zip(more) {
        sum.stats.add(&m.stats);
        sum.elapsed += m.elapsed;
    }
}

/// Every position `plies` moves after `root` (one per move sequence, so the positions'
/// trees partition the tree below that depth), with the moves in notation. Lines that end
/// the game earlier are left out.
pub fn positions_after<G: Game>(root: &G, plies: u32) -> Vec<(String, G)> {
    fn walk<G: Game>(game: &mut G, plies: u32, line: &mut Vec<String>, out: &mut Vec<(String, G)>) {
        if plies == 0 {
            out.push((line.join(" "), game.clone()));
            return;
        }
        if game.outcome().is_some() {
            return;
        }
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        for mv in moves {
            line.push(game.format_move(mv));
            game.make_move(mv);
            walk(game, plies - 1, line, out);
            game.unmake_move(mv);
            line.pop();
        }
    }
    let mut out = Vec::new();
    walk(&mut root.clone(), plies, &mut Vec::new(), &mut out);
    out
}

/// Nodes of each algorithm (outer index, as in [`ALGORITHMS`]) searching `root` to each
/// depth 1..=`max_depth` (inner index `depth - 1`), each from fresh tables.
pub fn nodes_per_depth<G: Game>(root: &G, max_depth: u32, hash_mb: usize) -> Vec<Vec<u64>> {
    ALGORITHMS
        .iter()
        .map(|algorithm| {
            (1..=max_depth)
                .map(|depth| {
                    measure_one(root, depth, algorithm.features, hash_mb)
                        .1
                        .nodes
                })
                .collect()
        })
        .collect()
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The measurements as an aligned table, one line per algorithm, under a header.
pub fn table(measurements: &[Measurement]) -> Vec<String> {
    let base = measurements.first().map_or(1, |m| m.stats.nodes.max(1));
    let header = [
        "algorithm",
        "nodes",
        "% minimax",
        "leaves",
        "cut-offs",
        "1st-move cut",
        "tt cut-offs",
        "time ms",
        "value",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
    for m in measurements {
        let rate = m
            .stats
            .first_move_rate()
            .map_or("-".to_string(), |r| format!("{:.1}%", 100.0 * r));
        rows.push(vec![
            m.algorithm.to_string(),
            thousands(m.stats.nodes),
            format!("{:.2}%", 100.0 * m.stats.nodes as f64 / base as f64),
            thousands(m.stats.leaves),
            thousands(m.stats.cutoffs),
            rate,
            thousands(m.stats.tt_cutoffs),
            format!("{:.3}", m.elapsed.as_secs_f64() * 1000.0),
            m.value.map_or("-".to_string(), describe),
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|r| r[c].len()).max().unwrap_or(0))
        .collect();
    rows.iter()
        .map(|row| {
            let mut line = format!("{:<w$}", row[0], w = widths[0]);
            for (cell, w) in row.iter().zip(&widths).skip(1) {
                let _ = write!(line, "  {cell:>w$}");
            }
            line
        })
        .collect()
}

/// The CSV header matching [`csv_rows`].
pub const CSV_HEADER: &str =
    "position,depth,algorithm,nodes,leaves,cutoffs,first_move_cutoffs,tt_cutoffs,time_ms,value";

/// The measurements of one position (named by `position`, without commas) as CSV rows.
pub fn csv_rows(position: &str, depth: u32, measurements: &[Measurement]) -> Vec<String> {
    measurements
        .iter()
        .map(|m| {
            format!(
                "{position},{depth},{},{},{},{},{},{},{:.3},{}",
                m.algorithm,
                m.stats.nodes,
                m.stats.leaves,
                m.stats.cutoffs,
                m.stats.first_move_cutoffs,
                m.stats.tt_cutoffs,
                m.elapsed.as_secs_f64() * 1000.0,
                m.value.map_or(String::new(), describe)
            )
        })
        .collect()
}

/// Line colours of the chart, one per algorithm.
const COLOURS: [&str; 4] = ["#d62728", "#ff7f0e", "#2ca02c", "#1f77b4"];

/// An SVG line chart of nodes (log scale) against depth, one line per series.
pub fn svg_chart(title: &str, names: &[&str], series: &[Vec<u64>]) -> String {
    let frame = Frame::new(series);
    let mut svg = String::new();
    let (width, height) = (frame.width, frame.height);
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>"#,
        width / 2.0,
        escape(title)
    );
    frame.axes(&mut svg);
    frame.lines(&mut svg, series);
    frame.legend(&mut svg, names);
    svg.push_str("</svg>\n");
    svg
}

/// The chart's geometry: its size, the plot area, the depths and the decades of nodes
/// shown.
struct Frame {
    width: f64,
    height: f64,
    left: f64,
    top: f64,
    plot_w: f64,
    plot_h: f64,
    depths: usize,
    low_decade: i32,
    high_decade: i32,
}

impl Frame {
    /// The frame that shows every value of `series`.
    fn new(series: &[Vec<u64>]) -> Frame {
        let (width, height) = (760.0, 460.0);
        let (left, right, top, bottom) = (80.0, 20.0, 50.0, 60.0);
        let depths = series.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let max = series.iter().flatten().copied().max().unwrap_or(1).max(1);
        let min = series
            .iter()
            .flatten()
            .copied()
            .filter(|&n| n > 0)
            .min()
            .unwrap_or(1);
        let low_decade = (min as f64).log10().floor() as i32;
        let high_decade = ((max as f64).log10().ceil() as i32).max(low_decade + 1);
        Frame {
            width,
            height,
            left,
            top,
            plot_w: width - left - right,
            plot_h: height - top - bottom,
            depths,
            low_decade,
            high_decade,
        }
    }

    /// The horizontal position of depth index `d`.
    fn x(&self, d: usize) -> f64 {
        if self.depths == 1 {
            self.left + self.plot_w / 2.0
        } else {
            self.left + self.plot_w * (d as f64) / (self.depths - 1) as f64
        }
    }

    /// The vertical position of `n` nodes (log scale).
    fn y(&self, n: u64) -> f64 {
        let v = (n.max(1) as f64).log10();
        self.top
            + self.plot_h * (f64::from(self.high_decade) - v)
                / f64::from(self.high_decade - self.low_decade)
    }

    /// Axes, decade grid lines and labels.
    fn axes(&self, svg: &mut String) {
        let (left, top, plot_w, plot_h) = (self.left, self.top, self.plot_w, self.plot_h);
        let (low_decade, high_decade) = (self.low_decade, self.high_decade);
        for decade in low_decade..=high_decade {
            let gy = top
                + plot_h * f64::from(high_decade - decade) / f64::from(high_decade - low_decade);
            let _ = writeln!(
                svg,
                "<line x1=\"{left}\" y1=\"{gy:.1}\" x2=\"{:.1}\" y2=\"{gy:.1}\" stroke=\"#ddd\"/>",
                left + plot_w
            );
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">1e{decade}</text>"#,
                left - 6.0,
                gy + 4.0
            );
        }
        for d in 0..self.depths {
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                self.x(d),
                top + plot_h + 18.0,
                d + 1
            );
        }
        let _ = writeln!(
            svg,
            r#"<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">search depth (plies)</text>"#,
            left + plot_w / 2.0,
            self.height - 18.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">nodes visited (log scale)</text>"#,
            top + plot_h / 2.0,
            top + plot_h / 2.0
        );
    }

    /// One line with markers per series.
    fn lines(&self, svg: &mut String, series: &[Vec<u64>]) {
        for (i, values) in series.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let points: Vec<String> = values
                .iter()
                .enumerate()
                .map(|(d, &n)| format!("{:.1},{:.1}", self.x(d), self.y(n)))
                .collect();
            let _ = writeln!(
                svg,
                r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
                points.join(" ")
            );
            for point in &points {
                let (px, py) = point.split_once(',').unwrap_or(("0", "0"));
                let _ = writeln!(
                    svg,
                    r#"<circle cx="{px}" cy="{py}" r="3" fill="{colour}"/>"#
                );
            }
        }
    }

    /// The legend: each series' colour and name.
    fn legend(&self, svg: &mut String, names: &[&str]) {
        for (i, name) in names.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let ly = self.top + 16.0 + 18.0 * i as f64;
            let _ = writeln!(
                svg,
                r#"<line x1="{:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="2"/>"#,
                self.left + 12.0,
                self.left + 36.0
            );
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
                self.left + 42.0,
                ly + 4.0,
                escape(name)
            );
        }
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// What the `tree-stats` command was asked (its arguments).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TreeStatsOptions {
    /// Start from this position instead of the start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Moves to play first, space-separated, in the game's notation.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Search depth (default: to the end of the game).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Measure every position K plies further (one per move sequence) and their total.
    #[arg(long, value_name = "K")]
    pub stones: Option<u32>,
    /// With --stones: print a table for each position too.
    #[arg(long)]
    pub each: bool,
    /// Print CSV instead of tables.
    #[arg(long)]
    pub csv: bool,
    /// Write an SVG chart of nodes per depth (log scale) to this file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<String>,
    /// Transposition table size in MiB.
    #[arg(long = "hash", value_name = "HASH", default_value_t = 16,
        value_parser = crate::protocol::options::parse_hash_mb)]
    pub hash_mb: usize,
}

impl TreeStatsOptions {
    /// Runs the `tree-stats` command for `kind`, printing the report.
    pub fn run(&self, kind: GameKind) -> Result<(), String> {
        run_command(kind, self, &mut std::io::stdout())
    }
}

/// Deepest full-depth search the command starts without an explicit `--depth` (plain
/// minimax to 42 plies of Connect Four would never end).
const MAX_DEFAULT_DEPTH: u32 = 16;

/// Runs the `tree-stats` command for `kind`, writing the report to `out`.
pub fn run_command(
    kind: GameKind,
    options: &TreeStatsOptions,
    out: &mut dyn Write,
) -> Result<(), String> {
    kind.visit_default(TreeStatsCommand { options, out })
}

/// `tree-stats` for the visited game, which must be searched exactly.
struct TreeStatsCommand<'a> {
    options: &'a TreeStatsOptions,
    out: &'a mut dyn Write,
}

impl GameVisitor for TreeStatsCommand<'_> {
    type Output = Result<(), String>;

    fn visit<G: Game>(self, game: Registered<G>) -> Self::Output {
        if !G::start(&game.variant).pruning().is_exact() {
            return Err(format!(
                "{} is not supported here: its search prunes inexactly",
                game.info.name
            ));
        }
        run_for::<G>(&game.variant, self.options, self.out)
    }
}

fn run_for<G: Game>(
    variant: &G::Variant,
    options: &TreeStatsOptions,
    out: &mut dyn Write,
) -> Result<(), String> {
    let moves = options.moves.split_whitespace();
    let root: G = position_with(
        variant,
        options.fen.as_deref(),
        moves,
        MoveTokens::RunsAllowed,
    )
    .map_err(|e| e.to_string())?;
    let depth_of = |game: &G| -> Result<u32, String> {
        match (options.depth, game.remaining_plies_bound()) {
            (Some(depth), _) => Ok(depth),
            (None, Some(r)) if r <= MAX_DEFAULT_DEPTH => Ok(r),
            _ => Err(format!(
                "the game's end is too deep for plain minimax from {}: give --depth",
                game.to_fen()
            )),
        }
    };
    let depth = depth_of(&root)?;
    let io = |e: std::io::Error| format!("cannot write the report: {e}");
    if options.csv {
        writeln!(out, "{CSV_HEADER}").map_err(io)?;
    }
    let positions = match options.stones {
        None => vec![(String::new(), root.clone())],
        Some(plies) => positions_after(&root, plies),
    };
    let mut total = Vec::new();
    for (line, position) in &positions {
        let depth = if options.stones.is_some() {
            depth_of(position)?
        } else {
            depth
        };
        let measurements = measure(position, depth, options.hash_mb);
        accumulate(&mut total, &measurements);
        if options.csv {
            for row in csv_rows(&position.to_fen(), depth, &measurements) {
                writeln!(out, "{row}").map_err(io)?;
            }
        } else if options.stones.is_none() || options.each {
            write_position_table(out, &position.to_fen(), line, depth, &measurements)
                .map_err(io)?;
        }
    }
    if let Some(plies) = options.stones {
        if !options.csv {
            writeln!(
                out,
                "total over the {} positions {plies} plies after {} (one per move sequence), each {}",
                positions.len(),
                root.to_fen(),
                options
                    .depth
                    .map_or("to the end".to_string(), |d| format!("to depth {d}"))
            )
            .map_err(io)?;
            for row in table(&total) {
                writeln!(out, "{row}").map_err(io)?;
            }
        }
    }
    if let Some(file) = &options.plot {
        write_plot(&root, depth, options.hash_mb, file)?;
        if !options.csv {
            writeln!(out, "chart written to {file}").map_err(io)?;
        }
    }
    Ok(())
}

/// The table of one position (`line`: the moves that led to it from the root, if any).
fn write_position_table(
    out: &mut dyn Write,
    fen: &str,
    line: &str,
    depth: u32,
    measurements: &[Measurement],
) -> std::io::Result<()> {
    let after = if line.is_empty() {
        String::new()
    } else {
        format!(" after {line}")
    };
    writeln!(out, "position {fen}{after}, depth {depth}")?;
    for row in table(measurements) {
        writeln!(out, "{row}")?;
    }
    writeln!(out)
}

/// Writes the SVG chart of the nodes each algorithm searches per depth from `root` to `file`.
fn write_plot<G: Game>(root: &G, depth: u32, hash_mb: usize, file: &str) -> Result<(), String> {
    let series = nodes_per_depth(root, depth, hash_mb);
    let names: Vec<&str> = ALGORITHMS.iter().map(|a| a.name).collect();
    let title = format!("Nodes per search depth from {}", root.to_fen());
    std::fs::write(file, svg_chart(&title, &names, &series))
        .map_err(|e| format!("cannot write '{file}': {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::mnk::{Mnk, MnkVariant};
    use crate::search::Rules;

    #[test]
    fn minimax_visits_the_whole_tictactoe_tree() {
        let root = Mnk::start(&MnkVariant::TICTACTOE);
        let results = measure(&root, 9, 1);
        assert_eq!(results[0].stats.nodes, 549_946);
        assert_eq!(results[0].stats.leaves, 255_168);
        assert_eq!(results[0].stats.cutoffs, 0);
        for m in &results {
            assert_eq!(m.value, Some(0), "{} finds the draw", m.algorithm);
        }
        for pair in results.windows(2) {
            assert!(pair[1].stats.nodes < pair[0].stats.nodes, "{pair:?}");
        }
    }

    #[test]
    fn subtrees_after_one_move_partition_the_tree() {
        let root = Mnk::start(&MnkVariant::TICTACTOE);
        let positions = positions_after(&root, 1);
        assert_eq!(positions.len(), 9);
        let nodes: u64 = positions
            .iter()
            .map(|(_, p)| measure_one(p, 8, SearchFeatures::MINIMAX, 1).1.nodes)
            .sum();
        assert_eq!(nodes + 1, 549_946);
    }

    #[test]
    fn chart_and_table_have_every_algorithm() {
        let root = Mnk::start(&MnkVariant::TICTACTOE);
        let series = nodes_per_depth(&root, 3, 1);
        assert_eq!(series[0], vec![10, 82, 586]);
        let names: Vec<&str> = ALGORITHMS.iter().map(|a| a.name).collect();
        let svg = svg_chart("t", &names, &series);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 4);
        let lines = table(&measure(&root, 2, 1));
        assert_eq!(lines.len(), 5);
        assert_eq!(thousands(549_946), "549,946");
        assert_eq!(thousands(12), "12");
    }
}
