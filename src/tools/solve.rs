//! `solve`: the exact game-theoretic value of a position and of every root move.
//!
//! A position whose game must end within the search's reach (Connect Four, tic-tac-toe,
//! 4x4) is searched to the end of the game with null windows only, by a binary search over
//! the few values a finished game can have (a loss or a win at each ply, or a draw), as
//! dedicated Connect Four solvers do: each probe asks "is the value at least v?", mate
//! distance pruning cuts every line longer than v allows, and the transposition table
//! carries the bounds of one probe into the next. Positions of bigger games (gomoku) are
//! deepened one ply at a time under a node budget until a win or a loss is proven.
//!
//! The exact searches are the search layer's ([`crate::search::exact`]): the game's own
//! solver, or the engine's core search ([`CoreSearch`]) for any game whose search is exact.
//! This tool only reads positions, asks for their values and writes them; it never prints
//! from a search: progress comes out as [`SolveProgress`].

use std::io::Write;
use std::time::{Duration, Instant};

use crate::games::registry::TestLineParser;
use crate::games::setup::{position_with, start_position, MoveTokens};
use crate::games::{GameInfo, GameKind, GameVisitor, Registered};
use crate::search::exact::{children, from_child, CoreSearch};
use crate::search::score::{outcome_score, MATE};
use crate::search::{ExactSearch, Game, MoveList, Score, ScoreReport};

/// How `solve` reads its move lists: moves in the game's notation separated by spaces, and
/// a token that is not a move but whose characters each are (Connect Four's `4453`) as that
/// sequence of moves.
const RUNS: MoveTokens = MoveTokens::RunsAllowed;

/// A score in words from the side to move's view: `win in N` / `loss in N` (counting the
/// winner's moves, as UCI's `mate N` does), `won` / `lost` for a game already over,
/// `draw`, or a heuristic `cp N`.
pub fn describe(score: Score) -> String {
    if score >= MATE {
        return "won".to_string();
    }
    match ScoreReport::from_score(score) {
        ScoreReport::Mate(0) => "lost".to_string(),
        ScoreReport::Mate(n) if n > 0 => format!("win in {n}"),
        ScoreReport::Mate(n) => format!("loss in {}", -n),
        ScoreReport::Centipawns(0) => "draw".to_string(),
        ScoreReport::Centipawns(cp) => format!("cp {cp}"),
    }
}

/// What the solver reports while it works (for a progress line on long solves).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveProgress {
    /// The value is known to be at least this.
    pub lower: Score,
    /// The value is known to be at most this.
    pub upper: Score,
    /// Nodes so far.
    pub nodes: u64,
    /// Time so far.
    pub elapsed: Duration,
}

/// The value of one root move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveValue<M> {
    /// The move.
    pub mv: M,
    /// Its exact value for the side to move at the root (`None`: budget exhausted).
    pub value: Option<Score>,
}

/// A solved (or partly solved) position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution<M> {
    /// The exact value for the side to move, `None` when the budget ran out first.
    pub value: Option<Score>,
    /// Every root move's value, in generation order (empty unless asked for).
    pub moves: Vec<MoveValue<M>>,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

impl<M: Copy> Solution<M> {
    /// The root moves whose value is the position's value.
    pub fn best_moves(&self) -> Vec<M> {
        match self.value {
            Some(value) => self
                .moves
                .iter()
                .filter(|m| m.value == Some(value))
                .map(|m| m.mv)
                .collect(),
            None => Vec::new(),
        }
    }
}

/// Solves positions of one game with one exact search (and its table).
pub struct Solver<G: Game> {
    search: Box<dyn ExactSearch<G>>,
    /// Node budget of one [`Solver::solve`] (all its searches together); `None` = no limit.
    pub budget: Option<u64>,
    /// Only win, draw or loss is wanted: values are then 1, 0 or -1.
    pub weak: bool,
}

impl<G: Game> Solver<G> {
    /// A solver on the engine's own search, with a table of `hash_mb` MiB.
    pub fn new(hash_mb: usize) -> Solver<G> {
        Solver::with_search(Box::new(CoreSearch::new(hash_mb)))
    }

    /// A solver on a game's own exact search.
    pub fn with_search(search: Box<dyn ExactSearch<G>>) -> Solver<G> {
        Solver {
            search,
            budget: None,
            weak: false,
        }
    }

    /// Forgets everything learnt, so the next position is solved as if by a new solver.
    pub fn forget(&mut self) {
        self.search.forget();
    }

    /// Nodes searched since the last [`Solver::solve`] began.
    pub fn nodes(&self) -> u64 {
        self.search.nodes()
    }

    /// The value of `root` and, when `with_moves`, of each root move.
    pub fn solve(
        &mut self,
        root: &G,
        with_moves: bool,
        progress: &mut dyn FnMut(&SolveProgress),
    ) -> Solution<G::Move> {
        let started = Instant::now();
        self.search.reset_nodes();
        let mut moves = Vec::new();
        let value = if with_moves && root.outcome().is_none() {
            // Step 1. Every move's value (the game's search may spread them over threads).
            let mut list = MoveList::new();
            root.generate_moves(&mut list);
            let children = children(root, &list);
            let values = self.values(&children, started, progress);
            moves = list
                .iter()
                .zip(values)
                .map(|(&mv, value)| MoveValue {
                    mv,
                    value: value.map(from_child),
                })
                .collect();
            // Step 2. The position's value is the best move's; only when a move's value is
            // unknown (the budget ran out), the position is searched itself.
            if moves.iter().all(|m| m.value.is_some()) {
                moves.iter().filter_map(|m| m.value).max()
            } else {
                self.value(root, started, progress)
            }
        } else {
            self.value(root, started, progress)
        };
        Solution {
            value,
            moves,
            nodes: self.search.nodes(),
            elapsed: started.elapsed(),
        }
    }

    /// The values of `positions` (each from its own side to move's view), as by
    /// [`Solver::value`].
    fn values(
        &mut self,
        positions: &[G],
        started: Instant,
        progress: &mut dyn FnMut(&SolveProgress),
    ) -> Vec<Option<Score>> {
        let open: Vec<G> = positions
            .iter()
            .filter(|p| p.outcome().is_none())
            .cloned()
            .collect();
        // Progress in the root's view: the bounds of the move being solved.
        let mut report = |_, lower, upper, nodes| {
            progress(&SolveProgress {
                lower: from_child(upper),
                upper: from_child(lower),
                nodes,
                elapsed: started.elapsed(),
            })
        };
        let mut values = self
            .search
            .values(&open, self.weak, self.budget, &mut report)
            .into_iter();
        positions
            .iter()
            .map(|p| match p.outcome() {
                Some(outcome) => Some(outcome_score(outcome, 0)),
                None => values.next().flatten().map(|v| self.shown(v)),
            })
            .collect()
    }

    /// A value as reported: only its sign when weak.
    fn shown(&self, value: Score) -> Score {
        if self.weak {
            value.signum()
        } else {
            value
        }
    }

    /// The exact value of `root` (when weak: 1, 0 or -1 for a win, draw or loss), `None`
    /// when the budget runs out.
    fn value(
        &mut self,
        root: &G,
        started: Instant,
        progress: &mut dyn FnMut(&SolveProgress),
    ) -> Option<Score> {
        if let Some(outcome) = root.outcome() {
            return Some(outcome_score(outcome, 0));
        }
        let search = &mut self.search;
        let mut report = |lower, upper, nodes| {
            progress(&SolveProgress {
                lower,
                upper,
                nodes,
                elapsed: started.elapsed(),
            })
        };
        let value = search.value(root, self.weak, self.budget, &mut report)?;
        Some(self.shown(value))
    }
}

/// What the `solve` command was asked (its arguments).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SolveOptions {
    /// Start from this position instead of the start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Moves to play first, space-separated, in the game's notation.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Solve every position of this file: one FEN or move sequence per line.
    #[arg(long, conflicts_with_all = ["fen", "moves"])]
    pub file: Option<String>,
    /// Connect Four: the file is in Pascal Pons' format (`<columns> <score>`); verify
    /// every score and report mean time, mean nodes and positions per second.
    #[arg(long, requires = "file")]
    pub check: bool,
    /// Solve only the first N positions of the file.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Node budget per position; the value is `unknown` when it runs out.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Transposition table size in MiB (a fresh table for each position).
    #[arg(long = "hash", value_name = "HASH", default_value_t = 64,
        value_parser = crate::protocol::options::parse_hash_mb)]
    pub hash_mb: usize,
    /// Only win, draw or loss for each value, no distances (faster in Connect Four).
    #[arg(long, conflicts_with = "check")]
    pub weak: bool,
    /// Threads solving the root moves side by side (Connect Four; a mirror image once).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

impl SolveOptions {
    /// Runs the `solve` command for `kind`: the report on stdout, progress on stderr.
    pub fn run(&self, kind: GameKind) -> Result<(), String> {
        run_command(kind, self, &mut std::io::stdout(), &mut std::io::stderr())
    }
}

/// Runs the `solve` command for `kind`, writing its report to `out` and progress lines to
/// `progress` (standard error on the command line).
pub fn run_command(
    kind: GameKind,
    options: &SolveOptions,
    out: &mut dyn Write,
    progress: &mut dyn Write,
) -> Result<(), String> {
    kind.visit_default(SolveCommand {
        options,
        out,
        progress,
    })
}

/// `solve` for the visited game: its dedicated solver if it has one, else the core search
/// (only for games whose search is exact).
struct SolveCommand<'a> {
    options: &'a SolveOptions,
    out: &'a mut dyn Write,
    progress: &'a mut dyn Write,
}

impl GameVisitor for SolveCommand<'_> {
    type Output = Result<(), String>;

    fn visit<G: Game>(self, game: Registered<G>) -> Self::Output {
        let (info, options) = (game.info, self.options);
        if options.check && info.tools.test_set.is_none() {
            return Err(format!(
                "--check reads exact test sets, which {} has none of (connect4 has)",
                info.name
            ));
        }
        let solver = match G::dedicated_solver(options.hash_mb, options.threads) {
            Some(search) => Solver::with_search(search),
            None if G::start(&game.variant).pruning().is_exact() => Solver::new(options.hash_mb),
            None => {
                return Err(format!(
                    "{} is not supported here: its search prunes inexactly",
                    info.name
                ))
            }
        };
        if !info.tools.solvable && options.nodes.is_none() {
            return Err(format!(
                "{} cannot be solved outright: give a budget with --nodes",
                info.name
            ));
        }
        run_for::<G>(
            info,
            &game.variant,
            solver,
            options,
            self.out,
            self.progress,
        )
    }
}

fn io_error(e: std::io::Error) -> String {
    format!("cannot write the report: {e}")
}

/// `solve` with `solver`: one position (from the options' FEN and moves), or every line of
/// the options' file, checked against its test set or solved; the report goes to `out`.
fn run_for<G: Game>(
    info: &GameInfo,
    variant: &G::Variant,
    mut solver: Solver<G>,
    options: &SolveOptions,
    out: &mut dyn Write,
    progress: &mut dyn Write,
) -> Result<(), String> {
    solver.budget = options.nodes;
    solver.weak = options.weak;
    // Step 1. One position: its value and every move's, with a progress line a second.
    let Some(path) = &options.file else {
        return solve_position(variant, &mut solver, options, out, progress);
    };

    // Step 2. A file: each line checked against its test set, or solved and reported.
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
    let lines = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(options.limit.unwrap_or(usize::MAX));
    let mut tally = Tally::default();
    for line in lines {
        // Pons' format: "<column digits> <score>"; otherwise a FEN or moves.
        match info.tools.test_set.filter(|_| options.check) {
            Some(parse) => check_line(variant, &mut solver, parse, line, &mut tally, out)?,
            None => solve_line(variant, &mut solver, line, options.weak, &mut tally, out)?,
        }
    }

    // Step 3. The summary; wrong scores fail the command.
    tally.write_summary(path, options.check, out)?;
    if tally.wrong > 0 {
        return Err(format!(
            "{} of {} scores are wrong",
            tally.wrong, tally.count
        ));
    }
    Ok(())
}

/// Step 1 of [`run_for`]: solves the options' position, with progress lines (at most one
/// a second) to `progress`, and writes the full report.
fn solve_position<G: Game>(
    variant: &G::Variant,
    solver: &mut Solver<G>,
    options: &SolveOptions,
    out: &mut dyn Write,
    progress: &mut dyn Write,
) -> Result<(), String> {
    let root: G = position_with(
        variant,
        options.fen.as_deref(),
        options.moves.split_whitespace(),
        RUNS,
    )
    .map_err(|e| e.to_string())?;
    let mut last_report = Instant::now();
    let mut on_progress = |p: &SolveProgress| {
        if last_report.elapsed() >= Duration::from_secs(1) {
            last_report = Instant::now();
            let _ = writeln!(
                progress,
                "info value between {} and {} nodes {} time {:.1} s",
                describe(p.lower),
                describe(p.upper),
                p.nodes,
                p.elapsed.as_secs_f64()
            );
        }
    };
    let solution = solver.solve(&root, true, &mut on_progress);
    write_solution(&root, &solution, options.weak, out).map_err(io_error)
}

/// What the lines of a file came to.
#[derive(Debug, Default)]
struct Tally {
    /// Positions solved.
    count: u64,
    /// Values that differ from the test set's.
    wrong: u64,
    /// Positions whose value the budget did not reach.
    unknown: u64,
    /// Lines that are no position.
    errors: u64,
    /// Nodes of every solve.
    nodes: u64,
    /// Time of every solve.
    time: Duration,
}

impl Tally {
    /// Counts a position's solution.
    fn add<M>(&mut self, solution: &Solution<M>) {
        self.count += 1;
        self.nodes += solution.nodes;
        self.time += solution.elapsed;
        if solution.value.is_none() {
            self.unknown += 1;
        }
    }

    /// Step 3 of [`run_for`]: the summary line of the file at `path`.
    fn write_summary(&self, path: &str, check: bool, out: &mut dyn Write) -> Result<(), String> {
        let Tally {
            count,
            wrong,
            unknown,
            errors,
            nodes,
            time,
        } = *self;
        let n = count.max(1) as f64;
        writeln!(
            out,
            "{path}: {count} positions{}{}, {unknown} unknown, mean time {:.3} ms, mean nodes {:.0}, {:.0} positions/s, total {:.3} s",
            if check { format!(", {wrong} wrong") } else { String::new() },
            if errors > 0 { format!(", {errors} bad lines") } else { String::new() },
            time.as_secs_f64() * 1000.0 / n,
            nodes as f64 / n,
            count as f64 / time.as_secs_f64().max(1e-9),
            time.as_secs_f64()
        )
        .map_err(io_error)
    }
}

/// Step 2 of [`run_for`], a line of a test set: solves its position (value only, with a
/// fresh table) and reports it when its value is not the expected one.
fn check_line<G: Game>(
    variant: &G::Variant,
    solver: &mut Solver<G>,
    parse_test_line: TestLineParser,
    line: &str,
    tally: &mut Tally,
    out: &mut dyn Write,
) -> Result<(), String> {
    let test = parse_test_line(line).map_err(|e| e.to_string())?;
    let root = position_with::<G, _>(variant, None, test.moves.split_whitespace(), RUNS)
        .map_err(|e| e.to_string())?;
    solver.forget();
    let solution = solver.solve(&root, false, &mut |_| {});
    tally.add(&solution);
    match solution.value {
        Some(v) if ScoreReport::from_score(v) != test.expected => {
            tally.wrong += 1;
            let expected = &test.expected;
            writeln!(
                out,
                "WRONG: {line}: solved {}, expected {expected}",
                describe(v)
            )
            .map_err(io_error)
        }
        _ => Ok(()),
    }
}

/// Step 2 of [`run_for`], a position of its own (a FEN or moves): the full report (value,
/// every move), as for one position, with a fresh table; a bad line is reported and
/// skipped.
fn solve_line<G: Game>(
    variant: &G::Variant,
    solver: &mut Solver<G>,
    line: &str,
    weak: bool,
    tally: &mut Tally,
    out: &mut dyn Write,
) -> Result<(), String> {
    let parsed = if line.contains('/') {
        start_position(variant, Some(line.trim()))
    } else {
        position_with::<G, _>(variant, None, line.split_whitespace(), RUNS)
    };
    let root = match parsed {
        Ok(root) => root,
        Err(e) => {
            tally.errors += 1;
            return writeln!(out, "position {} error: {e}", line.trim()).map_err(io_error);
        }
    };
    solver.forget();
    let solution = solver.solve(&root, true, &mut |_| {});
    tally.add(&solution);
    write_solution(&root, &solution, weak, out).map_err(io_error)
}

fn write_solution<G: Game>(
    root: &G,
    solution: &Solution<G::Move>,
    weak: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let unknown = || "unknown".to_string();
    let describe = |value: Score| {
        if !weak {
            describe(value)
        } else if value > 0 {
            "win".to_string()
        } else if value < 0 {
            "loss".to_string()
        } else {
            "draw".to_string()
        }
    };
    writeln!(out, "position {}", root.to_fen())?;
    writeln!(
        out,
        "value {}",
        solution.value.map_or_else(unknown, describe)
    )?;
    let best: Vec<String> = solution
        .best_moves()
        .iter()
        .map(|&mv| root.format_move(mv))
        .collect();
    writeln!(
        out,
        "best moves {}",
        if best.is_empty() {
            "-".to_string()
        } else {
            best.join(" ")
        }
    )?;
    for entry in &solution.moves {
        writeln!(
            out,
            "move {} {}",
            root.format_move(entry.mv),
            entry.value.map_or_else(unknown, describe)
        )?;
    }
    writeln!(
        out,
        "nodes {} time {:.3} ms",
        solution.nodes,
        solution.elapsed.as_secs_f64() * 1000.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::connect4::Connect4;
    use crate::games::mnk::{Mnk, MnkVariant};
    use crate::search::minimax::minimax;
    use crate::search::score::{is_mate, outcome_score, MATE};
    use crate::search::Rules;

    #[test]
    fn agrees_with_minimax_on_tictactoe_positions() {
        let mut solver = Solver::<Mnk>::new(1);
        for moves in [
            "",
            "b2",
            "a1 b2",
            "a1 b2 c3",
            "a1 a2 b1",
            "b2 a1 c1 a3",
            "a1 b1 b2 c1",
        ] {
            let tokens = moves.split_whitespace();
            let mut game: Mnk = position_with(&MnkVariant::TICTACTOE, None, tokens, RUNS).unwrap();
            let expected = minimax(&mut game, 9);
            solver.forget();
            let solution = solver.solve(&game, true, &mut |_| {});
            assert_eq!(solution.value, Some(expected), "position '{moves}'");
            let mut list = MoveList::new();
            game.generate_moves(&mut list);
            for entry in &solution.moves {
                game.make_move(entry.mv);
                // (minimax does not score a finished root: do it here.)
                let child = -match game.outcome() {
                    Some(outcome) => outcome_score(outcome, 0),
                    None => minimax(&mut game, 9),
                };
                game.unmake_move(entry.mv);
                // A child's value is relative to the child: one ply further from the root.
                let child_at_root = if is_mate(child) {
                    child - child.signum()
                } else {
                    child
                };
                assert_eq!(
                    entry.value,
                    Some(child_at_root),
                    "{moves} then {:?}",
                    entry.mv
                );
            }
            assert!(!solution.best_moves().is_empty());
        }
    }

    #[test]
    fn connect4_digit_strings_are_move_sequences() {
        let game: Connect4 = position_with(&(), None, ["4453"], RUNS).unwrap();
        assert_eq!(game.moves_played(), 4);
        assert!(position_with::<Connect4, _>(&(), None, ["4458"], RUNS).is_err());
    }

    #[test]
    fn a_tiny_budget_gives_no_value() {
        let mut solver = Solver::<Mnk>::new(1);
        solver.budget = Some(10);
        let game = Mnk::start(&MnkVariant::new(15, 15, 5).unwrap());
        let solution = solver.solve(&game, false, &mut |_| {});
        assert_eq!(solution.value, None);
    }

    #[test]
    fn describes_values() {
        assert_eq!(describe(0), "draw");
        assert_eq!(describe(MATE - 1), "win in 1");
        assert_eq!(describe(-MATE + 2), "loss in 1");
        assert_eq!(describe(15), "cp 15");
        assert_eq!(
            (describe(MATE), describe(-MATE)),
            ("won".into(), "lost".into())
        );
    }
}
