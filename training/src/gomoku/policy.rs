//! `cutoff --game gomoku train-policy`: fits gomoku's move-ordering tables
//! ([`cutoff::games::gomoku::policy::Policy`]: a score per cell code for the side to move
//! and for the opponent) to the moves cutoff's searches played in its datagen games.
//!
//! Datagen writes a game's positions in order, so a record followed by the same game one
//! stone later (the other side to move, its stones the first record's opponent's, and one
//! new stone beside the first record's own) names the move its search played. Of such a
//! position only the quiet candidates count (the cells the search generates whose hint is
//! below `QUIET_HINT_LIMIT`: the forcing moves are ordered by their threats first), and
//! only where the played move is one of them. The model is a softmax over those cells of
//! `own[code for the side to move] + theirs[code for the opponent] + near[distance class
//! to the opponent's last stone] + near_own[to the own last stone]` (the last stones
//! named by the records before, and placed last when the position is rebuilt, so the
//! engine's undo ring reads them as in play), fitted by Adam on the
//! cross-entropy; each epoch reports the held-out loss and how often the played move is
//! the first (against the same under the built-in order, the engine's `move_hint`).

use clap::Args;

use crate::gomoku::{decode_records, GomokuRecord, RECORD_BYTES};
use crate::trainer::TrainingRecord;
use cutoff::games::gomoku::nnue::{CELLS, CODES, SIZE};
use cutoff::games::gomoku::policy::{Policy, PolicyInputs, NEAR_BUCKETS};
use cutoff::games::gomoku::{Gomoku, GomokuVariant};
use cutoff::games::GameKind;
use cutoff::rng::SplitMix;
use cutoff::search::game::QUIET_HINT_LIMIT;
use cutoff::search::{MoveList, Rules, SearchHooks};

/// `cutoff --game gomoku train-policy`: fits the move-ordering tables to datagen games.
#[derive(Args, Clone, Debug)]
pub struct TrainPolicyArgs {
    /// Datagen record files, each in its games' order (not shuffled).
    #[arg(long, num_args = 1.., required = true)]
    pub data: Vec<String>,
    /// Record files of other games, for the held-out loss.
    #[arg(long, num_args = 1.., required = true)]
    pub validation_data: Vec<String>,
    /// Write the policy file here.
    #[arg(long)]
    pub out: String,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 12)]
    pub epochs: usize,
    /// Adam's step size.
    #[arg(long, default_value_t = 0.02)]
    pub lr: f32,
    /// Score units per unit of the fitted logit in the file.
    #[arg(long, default_value_t = 256)]
    pub scale: u16,
    /// Seed of the positions' order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl TrainPolicyArgs {
    /// Reads the records, fits the tables, reports each epoch and writes the file.
    pub fn run(&self, game: GameKind) -> Result<(), String> {
        if game.name() != "gomoku" {
            return Err(format!(
                "train-policy fits gomoku's move ordering only (not {})",
                game.name()
            ));
        }
        crate::check_output_path(&self.out)?;
        let train = read_samples(&self.data)?;
        let held_out = read_samples(&self.validation_data)?;
        if train.positions() == 0 || held_out.positions() == 0 {
            return Err("no position with a quiet played move in the data".into());
        }
        let report = |name: &str, samples: &Samples, weights: &Weights| {
            let (loss, first) = samples.measure(|codes| weights.logit(codes));
            let hand = samples.built_in_first();
            println!(
                "{name}: {} positions, loss {loss:.4}, played move first {:.1}% (the built-in order {:.1}%)",
                samples.positions(),
                100.0 * first,
                100.0 * hand
            );
        };
        let mut weights = Weights::zero();
        let mut adam = Adam::new(self.lr);
        let mut rng = SplitMix::new(self.seed);
        for epoch in 1..=self.epochs {
            train.epoch(&mut weights, &mut adam, &mut rng);
            print!("epoch {epoch}: ");
            report("held out", &held_out, &weights);
        }
        report("training", &train, &weights);
        let policy = weights.quantised(self.scale);
        std::fs::write(&self.out, policy.to_bytes())
            .map_err(|e| format!("cannot write {}: {e}", self.out))?;
        println!("wrote {}", self.out);
        Ok(())
    }
}

/// The quiet candidates of positions with their played move.
#[derive(Default)]
pub struct Samples {
    /// Every position's candidates' policy inputs (two codes, two distance classes), one
    /// position after the other.
    inputs: Vec<[u16; 4]>,
    /// The built-in hint of each candidate (`move_hint`), beside `inputs`.
    hints: Vec<i32>,
    /// Where each position's candidates end in `inputs`.
    ends: Vec<u32>,
    /// The played move's index among its position's candidates.
    played: Vec<u16>,
}

impl Samples {
    /// Number of positions.
    pub fn positions(&self) -> usize {
        self.ends.len()
    }

    /// The candidates of position `i` and the played move's index among them.
    fn position(&self, i: usize) -> (std::ops::Range<usize>, usize) {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        (start..self.ends[i] as usize, usize::from(self.played[i]))
    }

    /// Adds `game`'s quiet candidates if `played` is one of them and not the only one.
    pub fn push(&mut self, game: &Gomoku, played: cutoff::games::gomoku::Cell) {
        let mut moves = MoveList::new();
        game.generate_search_moves(&mut moves);
        let quiet: Vec<_> = moves
            .iter()
            .map(|&mv| (mv, game.move_hint(mv)))
            .filter(|&(_, hint)| hint < QUIET_HINT_LIMIT)
            .collect();
        let Some(index) = quiet.iter().position(|&(mv, _)| mv == played) else {
            return;
        };
        if quiet.len() < 2 {
            return;
        }
        for &(mv, hint) in &quiet {
            let PolicyInputs { codes, near } = game.policy_inputs(mv);
            let [a, b, c, d] = [codes[0], codes[1], near[0], near[1]].map(|x| x as u16);
            self.inputs.push([a, b, c, d]);
            self.hints.push(hint);
        }
        self.ends.push(self.inputs.len() as u32);
        self.played.push(index as u16);
    }

    /// The mean cross-entropy of the played moves under `logit`, and the share of
    /// positions where the played move scores highest (ties shared).
    pub fn measure(&self, logit: impl Fn([u16; 4]) -> f32) -> (f64, f64) {
        let (mut loss, mut first) = (0.0, 0.0);
        let mut logits = Vec::new();
        for i in 0..self.positions() {
            let (range, played) = self.position(i);
            logits.clear();
            logits.extend(self.inputs[range].iter().map(|&c| logit(c)));
            let (log_sum, _) = log_softmax_sum(&logits);
            loss += f64::from(log_sum - logits[played]);
            first += share_first(&logits, played);
        }
        let n = self.positions().max(1) as f64;
        (loss / n, first / n)
    }

    /// The share of positions where the played move has the highest built-in hint.
    pub fn built_in_first(&self) -> f64 {
        let mut first = 0.0;
        for i in 0..self.positions() {
            let (range, played) = self.position(i);
            let hints: Vec<f32> = self.hints[range].iter().map(|&h| h as f32).collect();
            first += share_first(&hints, played);
        }
        first / self.positions().max(1) as f64
    }

    /// One pass over the positions in a random order, a step every [`BATCH`] positions.
    fn epoch(&self, weights: &mut Weights, adam: &mut Adam, rng: &mut SplitMix) {
        let mut order: Vec<usize> = (0..self.positions()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut gradient = Weights::zero();
        let mut logits = Vec::new();
        for batch in order.chunks(BATCH) {
            gradient.clear();
            for &i in batch {
                let (range, played) = self.position(i);
                let inputs = &self.inputs[range];
                logits.clear();
                logits.extend(inputs.iter().map(|&c| weights.logit(c)));
                let (log_sum, _) = log_softmax_sum(&logits);
                for (k, (&input, &logit)) in inputs.iter().zip(&logits).enumerate() {
                    let p = (logit - log_sum).exp() - f32::from(u8::from(k == played));
                    gradient.add(input, p / batch.len() as f32);
                }
            }
            adam.step(weights, &gradient);
        }
    }
}

/// Positions per Adam step.
const BATCH: usize = 512;

/// `(log Σ exp(x), max x)` of `values`, computed stably.
fn log_softmax_sum(values: &[f32]) -> (f32, f32) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = values.iter().map(|&v| (v - max).exp()).sum();
    (max + sum.ln(), max)
}

/// 1 if `values[index]` is the only highest, 1/n if n values share the highest, else 0.
fn share_first(values: &[f32], index: usize) -> f64 {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if values[index] < max {
        return 0.0;
    }
    1.0 / values.iter().filter(|&&v| v == max).count() as f64
}

/// The fitted tables, in logit units.
#[derive(Clone)]
struct Weights {
    own: Vec<f32>,
    theirs: Vec<f32>,
    /// Per distance class to the opponent's last stone, then to the own.
    near: Vec<f32>,
}

impl Weights {
    fn zero() -> Weights {
        Weights {
            own: vec![0.0; CODES],
            theirs: vec![0.0; CODES],
            near: vec![0.0; 2 * NEAR_BUCKETS],
        }
    }

    fn clear(&mut self) {
        self.own.fill(0.0);
        self.theirs.fill(0.0);
        self.near.fill(0.0);
    }

    fn logit(&self, input: [u16; 4]) -> f32 {
        let [mine, theirs, last, own_last] = input.map(usize::from);
        self.own[mine] + self.theirs[theirs] + self.near[last] + self.near[NEAR_BUCKETS + own_last]
    }

    /// Adds `value` to the weights `input` reads.
    fn add(&mut self, input: [u16; 4], value: f32) {
        let [mine, theirs, last, own_last] = input.map(usize::from);
        self.own[mine] += value;
        self.theirs[theirs] += value;
        self.near[last] += value;
        self.near[NEAR_BUCKETS + own_last] += value;
    }

    /// The tables in units of `1 / scale` logit, the code of a cell where a stone makes
    /// nothing at 0 (a softmax forgets a constant added to every cell).
    fn quantised(&self, scale: u16) -> Policy {
        let nothing = cutoff::games::gomoku::nnue::nothing_code();
        let quantise = |v: f32| {
            (v * f32::from(scale))
                .round()
                .clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16
        };
        let table = |values: &[f32]| {
            let mut out = [0i16; CODES];
            for (o, &v) in out.iter_mut().zip(values) {
                *o = quantise(v - values[nothing]);
            }
            out
        };
        let near = |values: &[f32]| {
            let mut out = [0i16; NEAR_BUCKETS];
            for (o, &v) in out.iter_mut().zip(values) {
                *o = quantise(v - values[NEAR_BUCKETS - 1]);
            }
            out
        };
        Policy {
            own: table(&self.own),
            theirs: table(&self.theirs),
            near: [
                near(&self.near[..NEAR_BUCKETS]),
                near(&self.near[NEAR_BUCKETS..]),
            ],
            scale,
        }
    }
}

/// Adam's state for [`Weights`].
struct Adam {
    lr: f32,
    t: i32,
    m: Weights,
    v: Weights,
}

impl Adam {
    fn new(lr: f32) -> Adam {
        Adam {
            lr,
            t: 0,
            m: Weights::zero(),
            v: Weights::zero(),
        }
    }

    fn step(&mut self, weights: &mut Weights, gradient: &Weights) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.t += 1;
        let (c1, c2) = (1.0 - B1.powi(self.t), 1.0 - B2.powi(self.t));
        let update = |w: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32]| {
            for i in 0..w.len() {
                m[i] = B1 * m[i] + (1.0 - B1) * g[i];
                v[i] = B2 * v[i] + (1.0 - B2) * g[i] * g[i];
                w[i] -= self.lr * (m[i] / c1) / ((v[i] / c2).sqrt() + 1e-8);
            }
        };
        update(
            &mut weights.own,
            &gradient.own,
            &mut self.m.own,
            &mut self.v.own,
        );
        update(
            &mut weights.theirs,
            &gradient.theirs,
            &mut self.m.theirs,
            &mut self.v.theirs,
        );
        update(
            &mut weights.near,
            &gradient.near,
            &mut self.m.near,
            &mut self.v.near,
        );
    }
}

/// The samples of the record files `paths` (each in its games' order).
fn read_samples(paths: &[String]) -> Result<Samples, String> {
    let mut samples = Samples::default();
    for path in paths {
        let bytes = crate::train::read_records(std::slice::from_ref(path), RECORD_BYTES)?;
        let records = decode_records(&bytes);
        if let Some(problem) = records.iter().find_map(TrainingRecord::problem) {
            return Err(format!("{path}: {problem}"));
        }
        let before = samples.positions();
        for (record, played, last) in positions_with_moves(&records) {
            if let Some(game) = position_of(&record, last) {
                let (file, rank) = ((played % SIZE) as u8, (played / SIZE) as u8);
                if let Some(played) = game.cell(file, rank) {
                    samples.push(&game, played);
                }
            }
        }
        println!(
            "{path}: {} records, {} positions with a quiet played move",
            records.len(),
            samples.positions() - before
        );
    }
    Ok(samples)
}

/// The records whose move and last two stones the records around them name: each with
/// the cell (`15 · rank + file`) of the stone its side to move played and the cells of
/// its own last stone and of the opponent's last stone.
pub fn positions_with_moves(records: &[GomokuRecord]) -> Vec<(GomokuRecord, usize, [usize; 2])> {
    let moves: Vec<Option<usize>> = records
        .windows(2)
        .map(|pair| next_stone(&pair[0], &pair[1]))
        .collect();
    (2..moves.len())
        .filter_map(|k| {
            let (own_last, last, played) = (moves[k - 2]?, moves[k - 1]?, moves[k]?);
            Some((records[k], played, [own_last, last]))
        })
        .collect()
}

/// The cell of the stone `now`'s side to move played if `next` is the same game one
/// stone later.
fn next_stone(now: &GomokuRecord, next: &GomokuRecord) -> Option<usize> {
    // The next record is the opponent's view: its stones are our opponent's, its
    // opponent's ours and one more.
    if next.stones[0] != now.stones[1] {
        return None;
    }
    let mut added = None;
    for word in 0..4 {
        let (before, after) = (now.stones[0][word], next.stones[1][word]);
        if before & !after != 0 {
            return None;
        }
        let new = after & !before;
        match (new.count_ones(), added) {
            (0, _) => {}
            (1, None) => added = Some(64 * word + new.trailing_zeros() as usize),
            _ => return None,
        }
    }
    added.filter(|&cell| cell < CELLS)
}

/// The position of a record: its stones placed in turns on a 15x15 freestyle board (the
/// first player's first), `last` (the side to move's last stone, then the opponent's)
/// placed last, or `None` if `last` are not the record's stones or no game of turns
/// reaches the record without a five.
pub fn position_of(record: &GomokuRecord, last: [usize; 2]) -> Option<Gomoku> {
    let has = |side: &[u64; 4], c: usize| c < CELLS && side[c / 64] >> (c % 64) & 1 != 0;
    let [own, other] = record.stones;
    if !has(&own, last[0]) || !has(&other, last[1]) {
        return None;
    }
    let count = |side: &[u64; 4]| side.iter().map(|w| w.count_ones()).sum::<u32>();
    let in_turn = |side: [u64; 4], last: usize| {
        let mut cells: Vec<usize> = (0..CELLS).filter(|&c| has(&side, c) && c != last).collect();
        cells.push(last);
        cells
    };
    // The side to move is the first player when the counts are equal.
    let (own_cells, other_cells) = (in_turn(own, last[0]), in_turn(other, last[1]));
    let (first, second) = if count(&own) == count(&other) {
        (own_cells, other_cells)
    } else {
        (other_cells, own_cells)
    };
    if first.len() != second.len() && first.len() != second.len() + 1 {
        return None;
    }
    let mut game = Gomoku::start(&GomokuVariant::FREESTYLE15);
    for turn in 0..first.len() + second.len() {
        let cell = if turn % 2 == 0 {
            first[turn / 2]
        } else {
            second[turn / 2]
        };
        let mv = game.cell((cell % SIZE) as u8, (cell / SIZE) as u8)?;
        if game.game_end().is_some() {
            return None;
        }
        game.make_move(mv);
    }
    game.game_end().is_none().then_some(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cutoff::search::Player;

    fn record_of(game: &Gomoku) -> GomokuRecord {
        let [x, o] = game.stones15().unwrap();
        let second = game.side_to_move() == Player::Second;
        GomokuRecord::new(if second { [o, x] } else { [x, o] }, 0, 0.5)
    }

    #[test]
    fn consecutive_records_name_the_played_move_and_the_last_stones() {
        let mut game = Gomoku::start(&GomokuVariant::FREESTYLE15);
        let mut records = Vec::new();
        let line = ["h8", "i9", "g7", "j10", "f6", "e5", "k11"];
        for name in line {
            records.push(record_of(&game));
            game.make_move(game.parse_move(name).unwrap());
        }
        records.push(record_of(&game));
        // A position left out (the record after f6) names no move, so the positions
        // before f6 and e5 name none, and k11's position lacks its last stones.
        records.remove(5);
        let name = |cell: usize| {
            let game = Gomoku::start(&GomokuVariant::FREESTYLE15);
            game.format_move(game.cell((cell % SIZE) as u8, (cell / SIZE) as u8).unwrap())
        };
        let found: Vec<[String; 3]> = positions_with_moves(&records)
            .iter()
            .map(|&(_, played, [own, last])| [name(own), name(last), name(played)])
            .collect();
        assert_eq!(
            found,
            [["h8", "i9", "g7"], ["i9", "g7", "j10"]].map(|t| t.map(String::from))
        );
        let (record, _, last) = positions_with_moves(&records)[1];
        let rebuilt = position_of(&record, last).unwrap();
        assert_eq!(record_of(&rebuilt), record);
        assert_eq!(rebuilt.side_to_move(), cutoff::search::Player::Second);
        // The rebuilt position's last stones are the ones named: f6 is next to the
        // opponent's g7 (class 0) and three cells from the own i9 (class 2).
        let f6 = rebuilt.parse_move("f6").unwrap();
        assert_eq!(rebuilt.policy_inputs(f6).near, [0, 2]);
        assert!(
            position_of(&record, [last[1], last[0]]).is_none(),
            "stones of the wrong side"
        );
    }

    #[test]
    fn fitting_learns_to_prefer_the_played_kind_of_cell() {
        // Positions where the played move is the quiet candidate a fixed rule of the
        // codes prefers: the fitted tables must come to agree with the rule.
        let teacher = |game: &Gomoku, mv| {
            let codes = game.policy_inputs(mv).codes;
            codes[0] + 2 * codes[1]
        };
        let mut samples = Samples::default();
        let mut rng = SplitMix::new(5);
        for _ in 0..300 {
            let mut game = Gomoku::start(&GomokuVariant::FREESTYLE15);
            game.make_move(game.parse_move("h8").unwrap());
            for _ in 0..(4 + rng.below(10)) {
                let mut moves = MoveList::new();
                game.generate_search_moves(&mut moves);
                let mv = moves[rng.below(moves.len())];
                game.make_move(mv);
                if game.game_end().is_some() {
                    break;
                }
            }
            if game.game_end().is_some() {
                continue;
            }
            let mut moves = MoveList::new();
            game.generate_search_moves(&mut moves);
            let best = moves
                .iter()
                .copied()
                .filter(|&mv| game.move_hint(mv) < QUIET_HINT_LIMIT)
                .max_by_key(|&mv| teacher(&game, mv));
            if let Some(best) = best {
                samples.push(&game, best);
            }
        }
        assert!(samples.positions() > 100, "{}", samples.positions());
        let (zero_loss, _) = samples.measure(|_| 0.0);
        assert!(samples
            .inputs
            .iter()
            .all(|i| usize::from(i[2]) < NEAR_BUCKETS));
        let mut weights = Weights::zero();
        let mut adam = Adam::new(0.05);
        for _ in 0..30 {
            samples.epoch(&mut weights, &mut adam, &mut rng);
        }
        let (loss, first) = samples.measure(|codes| weights.logit(codes));
        assert!(loss < 0.7 * zero_loss, "{loss} against {zero_loss}");
        assert!(first > 0.5, "played move first in {first}");
        let policy = weights.quantised(256);
        assert_eq!(Policy::parse(&policy.to_bytes()), Ok(policy));
    }
}
