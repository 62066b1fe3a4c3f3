//! The choice of a root move by exact values ([`best_exact_move`]): the fastest win, else a
//! draw, else the latest loss, asked of any [`ExactSearch`] in two passes (win, draw or
//! loss first, distances only for the best class).

use super::{children, from_child, ExactSearch};
use crate::search::score::{outcome_score, Score, DRAW, MATE, MATE_BOUND, MAX_PLY};
use crate::search::Game;

/// A root move chosen by exact values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactChoice<M> {
    /// The move.
    pub mv: M,
    /// Its value for the side to move: exact, or for a win of unknown distance the latest
    /// the win can come ([`win_bound`]).
    pub score: Score,
    /// Whether `score` is the exact distance (not only win, draw or loss).
    pub distance_known: bool,
}

/// The score of a win whose distance is not known: a win on the side to move's last
/// possible move (`mate N` with N its moves left), or just past the mate bound in a game
/// without an end in sight.
pub fn win_bound<G: Game>(root: &G) -> Score {
    match root.remaining_plies_bound() {
        Some(plies) if (plies as usize) < MAX_PLY => MATE - plies.max(1) as Score,
        _ => MATE_BOUND,
    }
}

/// The root move of the best exact value among `moves` (each must be legal in `root`), by
/// the exact `search`: the fastest win, else a draw, else the loss that comes latest.
///
/// Step 1 takes only win, draw or loss of every move (weak values, cheap); step 2 the
/// exact distances of the moves of the best class, when it is a win or a loss. Ties go to
/// the first such move in `moves`' order (the root order: the game's hints, so wins,
/// blocks, then threats and the centre). Returns `None` when the search gives up (its
/// interrupt or budget) before step 1 is done, or, for a loss, before step 2 is; a win
/// whose distance step 2 could not find is still returned, with
/// `distance_known: false`.
pub fn best_exact_move<G: Game>(
    search: &mut dyn ExactSearch<G>,
    root: &G,
    moves: &[G::Move],
) -> Option<ExactChoice<G::Move>> {
    // Step 1. The positions after each move; a move that ends the game in a win wins now.
    let children = children(root, moves);
    let ended = |child: &G| child.outcome().map(|o| from_child(outcome_score(o, 0)));
    if let Some(index) = children.iter().position(|c| ended(c) == Some(MATE - 1)) {
        return Some(ExactChoice {
            mv: moves[index],
            score: MATE - 1,
            distance_known: true,
        });
    }

    // Step 2. Win, draw or loss of every move (in the root's view: -1, 0, 1).
    let open: Vec<G> = children
        .iter()
        .filter(|c| c.outcome().is_none())
        .cloned()
        .collect();
    let mut weak = search
        .values(&open, true, None, &mut |_, _, _, _| {})
        .into_iter();
    let mut classes = Vec::with_capacity(children.len());
    for child in &children {
        classes.push(match ended(child) {
            Some(score) => score.signum(),
            None => -weak.next().flatten()?.signum(),
        });
    }
    let best_class = classes.iter().copied().max()?;
    let candidates: Vec<usize> = (0..moves.len())
        .filter(|&i| classes[i] == best_class)
        .collect();
    if best_class == 0 {
        return Some(ExactChoice {
            mv: moves[candidates[0]],
            score: DRAW,
            distance_known: true,
        });
    }

    // Step 3. The exact values of the best class: the fastest win, the latest loss.
    let open: Vec<G> = candidates
        .iter()
        .map(|&i| &children[i])
        .filter(|c| c.outcome().is_none())
        .cloned()
        .collect();
    let mut strong = search
        .values(&open, false, None, &mut |_, _, _, _| {})
        .into_iter();
    let mut best: Option<ExactChoice<G::Move>> = None;
    for &index in &candidates {
        let score = match ended(&children[index]) {
            Some(score) => Some(score),
            None => strong.next().flatten().map(from_child),
        };
        let Some(score) = score else {
            // Out of time: a win is still a win; a loss is left to the search.
            return (best_class > 0).then(|| ExactChoice {
                mv: moves[candidates[0]],
                score: win_bound(root),
                distance_known: false,
            });
        };
        if best.as_ref().map_or(true, |b| score > b.score) {
            best = Some(ExactChoice {
                mv: moves[index],
                score,
                distance_known: true,
            });
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::mnk::{Cell, Mnk, MnkVariant};
    use crate::search::exact::CoreSearch;
    use crate::search::minimax::minimax;
    use crate::search::MoveList;
    use crate::search::Rules;

    fn position(cells: &[u8]) -> (Mnk, MoveList<Cell>) {
        let mut game = Mnk::start(&MnkVariant::TICTACTOE);
        for &cell in cells {
            game.make_move(Cell(cell));
        }
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        (game, moves)
    }

    /// An exact search that always gives up.
    struct GivesUp;

    impl ExactSearch<Mnk> for GivesUp {
        fn value(
            &mut self,
            _: &Mnk,
            _: bool,
            _: Option<u64>,
            _: &mut dyn FnMut(Score, Score, u64),
        ) -> Option<Score> {
            None
        }
        fn forget(&mut self) {}
        fn nodes(&self) -> u64 {
            0
        }
        fn reset_nodes(&mut self) {}
    }

    #[test]
    fn the_start_is_a_draw_and_a_win_now_is_taken_at_once() {
        let (game, moves) = position(&[]);
        let choice = best_exact_move(&mut CoreSearch::new(1), &game, &moves).unwrap();
        assert_eq!((choice.score, choice.distance_known), (DRAW, true));
        let (game, moves) = position(&[0, 3, 1, 4]);
        let choice = best_exact_move(&mut GivesUp, &game, &moves).unwrap();
        assert_eq!((choice.mv, choice.score), (Cell(2), MATE - 1));
    }

    #[test]
    fn a_win_is_the_fastest_by_minimax() {
        let (game, moves) = position(&[4, 1]);
        let choice = best_exact_move(&mut CoreSearch::new(1), &game, &moves).unwrap();
        assert!(choice.score > 0 && choice.distance_known);
        let mut child = game.clone();
        child.make_move(choice.mv);
        assert_eq!(from_child(minimax(&mut child, 9)), choice.score);
        for &mv in &moves {
            let mut other = game.clone();
            other.make_move(mv);
            let value = match other.outcome() {
                Some(outcome) => from_child(outcome_score(outcome, 0)),
                None => from_child(minimax(&mut other, 9)),
            };
            assert!(value <= choice.score, "{mv:?}");
        }
    }

    #[test]
    fn a_search_that_gives_up_chooses_nothing() {
        let (game, moves) = position(&[4]);
        assert_eq!(best_exact_move(&mut GivesUp, &game, &moves), None);
        assert!(win_bound(&game) > MATE_BOUND && win_bound(&game) < MATE);
    }
}
