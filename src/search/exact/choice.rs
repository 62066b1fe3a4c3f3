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
/// the exact `search`: the value of the position first, then a move that keeps it, then,
/// when there is time, the fastest win or the latest loss.
///
/// Step 2 solves the root once (win, draw or loss only, cheap); step 3 takes the first
/// move in `moves`' order (the root order: the game's hints, so wins, blocks, then
/// threats and the centre) whose position keeps that value (the table the root's solve
/// filled makes the right move's check fast); step 4 the exact distance of a win or loss.
/// Returns `None` when the search gives up (its interrupt or budget) before step 3 is
/// done, or, for a loss, before step 4 is; a win or draw found by step 3 is returned even
/// when step 4 does not finish, a win then with `distance_known: false`.
pub fn best_exact_move<G: Game>(
    search: &mut dyn ExactSearch<G>,
    root: &G,
    moves: &[G::Move],
) -> Option<ExactChoice<G::Move>> {
    best_exact_move_noting(search, root, moves, &mut Vec::new())
}

/// [`best_exact_move`], noting in `spoilers` the moves found (by step 3) to let the
/// position's value go: when the search gives up, the normal search can leave them out.
pub fn best_exact_move_noting<G: Game>(
    search: &mut dyn ExactSearch<G>,
    root: &G,
    moves: &[G::Move],
    spoilers: &mut Vec<G::Move>,
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

    // Step 2. The root's class: win, draw or loss (1, 0, -1).
    let class = search.value(root, true, None, &mut |_, _, _| {})?.signum();

    // Step 3. The first move that keeps it (in a lost position, any move does).
    let mut keeper = None;
    for (index, child) in children.iter().enumerate() {
        let kept = match ended(child) {
            Some(score) => score.signum() == class,
            None => -search.value(child, true, None, &mut |_, _, _| {})?.signum() == class,
        };
        if kept {
            keeper = Some(index);
            break;
        }
        spoilers.push(moves[index]);
    }
    let keeper = keeper?;
    if class == 0 {
        return Some(ExactChoice {
            mv: moves[keeper],
            score: DRAW,
            distance_known: true,
        });
    }

    // Step 4. The exact value, then a move that keeps it: the fastest win, the latest
    // loss. Out of time: a win is still a win; a loss is left to the search.
    let unknown = (class > 0).then(|| ExactChoice {
        mv: moves[keeper],
        score: win_bound(root),
        distance_known: false,
    });
    let Some(value) = search.value(root, false, None, &mut |_, _, _| {}) else {
        return unknown;
    };
    // The moves before the keeper do not keep even the class.
    for (index, child) in children.iter().enumerate().skip(keeper) {
        let score = match ended(child) {
            Some(score) => score,
            None => match search.value(child, false, None, &mut |_, _, _| {}) {
                Some(score) => from_child(score),
                None => return unknown,
            },
        };
        if score == value {
            return Some(ExactChoice {
                mv: moves[index],
                score,
                distance_known: true,
            });
        }
    }
    unknown
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

    /// An exact search that counts the positions it is asked about.
    struct Counting(CoreSearch<Mnk>, usize);

    impl ExactSearch<Mnk> for Counting {
        fn value(
            &mut self,
            root: &Mnk,
            weak: bool,
            budget: Option<u64>,
            report: &mut dyn FnMut(Score, Score, u64),
        ) -> Option<Score> {
            self.1 += 1;
            self.0.value(root, weak, budget, report)
        }
        fn forget(&mut self) {}
        fn nodes(&self) -> u64 {
            self.0.nodes()
        }
        fn reset_nodes(&mut self) {}
    }

    #[test]
    fn the_value_comes_first_and_one_move_that_keeps_it_is_enough() {
        // The start is a draw, and every first move keeps it: the root and the first
        // move are solved, not all nine moves.
        let (game, moves) = position(&[]);
        let mut search = Counting(CoreSearch::new(1), 0);
        let choice = best_exact_move(&mut search, &game, &moves).unwrap();
        assert_eq!((choice.score, search.1), (DRAW, 2));
        // A corner reply to the centre draws, an edge loses: after an edge, x wins and
        // keeps the win with whatever move comes first that does.
        let (game, moves) = position(&[4, 1]);
        let mut search = Counting(CoreSearch::new(1), 0);
        let choice = best_exact_move(&mut search, &game, &moves).unwrap();
        assert!(choice.score > 0 && choice.distance_known);
        let mut child = game.clone();
        child.make_move(choice.mv);
        assert!(minimax(&mut child, 9) < 0);
    }

    #[test]
    fn a_search_that_gives_up_chooses_nothing() {
        let (game, moves) = position(&[4]);
        assert_eq!(best_exact_move(&mut GivesUp, &game, &moves), None);
        assert!(win_bound(&game) > MATE_BOUND && win_bound(&game) < MATE);
    }
}
