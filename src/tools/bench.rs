//! `bench`: a fixed-depth search of fixed positions of every game, one thread, fresh tables
//! per position. The node count is the signature of the search's behaviour; the speed is
//! reported as nodes per second. The searches go through the [`ThreadPool`], blocking and
//! silent.

use std::time::{Duration, Instant};

use crate::games::{self, GameKind, GameVisitor, Registered, VariantSettings};
use crate::protocol::options::DEFAULT_HASH_MB;
use crate::search::{Game, Limits, ThreadPool};
use crate::tools::EvalArgs;

/// `cutoff bench`: its depth and the evaluation of chess.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct BenchArgs {
    /// Depth for every game instead of each game's default.
    pub depth: Option<u32>,
    /// How the game of `--game` evaluates (`--evalfile`, `--hce`).
    #[command(flatten)]
    pub eval: EvalArgs,
}

impl BenchArgs {
    /// Runs the bench with these arguments and prints its report; `--evalfile` is a net of
    /// `game`.
    pub fn run(&self, game: GameKind) -> Result<(), String> {
        let settings = self.eval.settings(game)?;
        // A net file is `game`'s: the other games keep their default evaluation.
        let only = self.eval.evalfile.is_some().then_some(game);
        for line in run_selected(self.depth, DEFAULT_HASH_MB, &settings, only).lines() {
            println!("{line}");
        }
        Ok(())
    }
}

/// One game's share of the bench.
#[derive(Clone, Debug)]
pub struct BenchLine {
    /// Game name.
    pub game: &'static str,
    /// Positions searched.
    pub positions: usize,
    /// Depth searched.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

/// The whole bench.
#[derive(Clone, Debug)]
pub struct BenchReport {
    /// Per-game results.
    pub games: Vec<BenchLine>,
}

impl BenchReport {
    /// Total nodes: the bench signature.
    pub fn nodes(&self) -> u64 {
        self.games.iter().map(|g| g.nodes).sum()
    }

    /// Nodes per second over the whole bench.
    pub fn nps(&self) -> u64 {
        let micros: u128 = self.games.iter().map(|g| g.elapsed.as_micros()).sum();
        (u128::from(self.nodes()) * 1_000_000 / micros.max(1)) as u64
    }

    /// The report as text; the last line is `Bench: <nodes> nodes <nps> nps`.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .games
            .iter()
            .map(|g| {
                format!(
                    "info string bench {} positions {} depth {} nodes {} time {}",
                    g.game,
                    g.positions,
                    g.depth,
                    g.nodes,
                    g.elapsed.as_millis()
                )
            })
            .collect();
        lines.push(format!("Bench: {} nodes {} nps", self.nodes(), self.nps()));
        lines
    }
}

/// Searches one game's bench positions (from its registry entry), each with a cleared table.
struct BenchGame {
    depth: Option<u32>,
    hash_mb: usize,
}

impl GameVisitor for BenchGame {
    type Output = BenchLine;

    fn visit<G: Game>(self, game: Registered<G>) -> BenchLine {
        let info = game.info;
        let depth = self.depth.unwrap_or(info.tools.bench_depth).max(1);
        let mut pool = ThreadPool::<G>::new(self.hash_mb);
        let mut nodes = 0;
        let mut elapsed = Duration::ZERO;
        for position in info.tools.bench_positions {
            // The registry test checks every bench position.
            let Ok(root) = position.position::<G>(&game.variant) else {
                log::error!("{}: bench position {position:?} is refused", info.name);
                continue;
            };
            // Fresh tables: every position is searched as the first of a game.
            pool.new_game();
            let started = Instant::now();
            let result = pool.search(&root, &Limits::depth(depth), &[]);
            elapsed += started.elapsed();
            nodes += result.nodes;
        }
        BenchLine {
            game: info.name,
            positions: info.tools.bench_positions.len(),
            depth,
            nodes,
            elapsed,
        }
    }
}

/// Runs the bench over every registered game; `depth` overrides each game's own depth.
/// The bench signature: default variants, each game's own evaluation.
pub fn run(depth: Option<u32>, hash_mb: usize) -> BenchReport {
    run_with(depth, hash_mb, &VariantSettings::default())
}

/// The bench with the variants and evaluation networks `settings` select (`cutoff bench
/// --evalfile`): nodes then differ from the signature.
pub fn run_with(depth: Option<u32>, hash_mb: usize, settings: &VariantSettings) -> BenchReport {
    run_selected(depth, hash_mb, settings, None)
}

/// The bench with `settings` for the game `only` (every game if `None`), the default
/// variants for the others.
fn run_selected(
    depth: Option<u32>,
    hash_mb: usize,
    settings: &VariantSettings,
    only: Option<GameKind>,
) -> BenchReport {
    let hash_mb = hash_mb.clamp(1, 64);
    let default = VariantSettings::default();
    BenchReport {
        games: games::all()
            .map(|kind| {
                let chosen = if only.map_or(true, |game| game == kind) {
                    settings
                } else {
                    &default
                };
                kind.visit(chosen, BenchGame { depth, hash_mb })
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_is_deterministic() {
        let a = run(Some(3), 1);
        let b = run(Some(3), 1);
        assert_eq!(a.nodes(), b.nodes());
        assert!(a.nodes() > 0);
        let last = a.lines().pop().expect("a final line");
        assert!(last.starts_with(&format!("Bench: {} nodes ", a.nodes())));
    }
}
