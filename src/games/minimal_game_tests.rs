//! The least a game implements, shown on Nim and searched by the real search core: a pile
//! of stones, each player takes one to three in turn, and whoever takes the last stone
//! wins. Every [`Rules`] item without a default, the four mandatory [`SearchHooks`] items,
//! and an empty [`SearchRefinements`] and [`ExactHooks`]: nothing else. The tests check that
//! the engine's search and its exact search find the known values and winning moves
//! (a pile that is a multiple of four is lost for the side to move; otherwise taking the
//! remainder wins), and that bad text is refused.

use crate::rng::SplitMix;
use crate::search::exact::CoreSearch;
use crate::search::score::{Score, MATE};
use crate::search::{
    ExactHooks, ExactSearch, GameError, Limits, MoveList, Outcome, Player, Rules, SearchHooks,
    SearchRefinements, ThreadPool,
};

/// The most stones a move may take.
const MOST: u8 = 3;

/// A Nim position: the stones left and the side to move. A move is the number taken.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Nim {
    pile: u8,
    side: Player,
    ply: u32,
}

impl Rules for Nim {
    type Move = u8;
    type Variant = ();

    fn start(_: &()) -> Nim {
        Nim {
            pile: 21,
            side: Player::First,
            ply: 0,
        }
    }

    /// `<pile> <x|o>`: `12 x` is a pile of 12 with the first player to move.
    fn from_fen(_: &(), fen: &str) -> Result<Nim, GameError> {
        let mut fields = fen.split_whitespace();
        let (Some(pile), Some(side), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(GameError::position(fen, "expected '<pile> <x|o>'"));
        };
        let pile = pile
            .parse()
            .map_err(|_| GameError::position(fen, "the pile is not a number of 0 to 255"))?;
        let side = match side {
            "x" => Player::First,
            "o" => Player::Second,
            _ => return Err(GameError::position(fen, "the side to move is not x or o")),
        };
        Ok(Nim { pile, side, ply: 0 })
    }

    fn to_fen(&self) -> String {
        let side = match self.side {
            Player::First => 'x',
            Player::Second => 'o',
        };
        format!("{} {side}", self.pile)
    }

    fn render(&self) -> String {
        "|".repeat(usize::from(self.pile))
    }

    fn side_to_move(&self) -> Player {
        self.side
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn generate_moves(&self, moves: &mut MoveList<u8>) {
        moves.extend(1..=MOST.min(self.pile));
    }

    fn make_move(&mut self, take: u8) {
        self.pile -= take;
        self.side = self.side.other();
        self.ply += 1;
    }

    fn unmake_move(&mut self, take: u8) {
        self.pile += take;
        self.side = self.side.other();
        self.ply -= 1;
    }

    /// An empty pile: the opponent took the last stone.
    fn outcome(&self) -> Option<Outcome> {
        (self.pile == 0).then_some(Outcome::Loss)
    }

    fn hash(&self) -> u64 {
        let side = self.side.index() as u64;
        SplitMix::new(u64::from(self.pile) << 1 | side).next_u64()
    }

    fn parse_move(&self, text: &str) -> Result<u8, GameError> {
        let take: u8 = text
            .parse()
            .map_err(|_| GameError::InvalidMove(text.to_string()))?;
        if !(1..=MOST).contains(&take) {
            return Err(GameError::InvalidMove(text.to_string()));
        }
        if take > self.pile {
            return Err(GameError::IllegalMove(text.to_string()));
        }
        Ok(take)
    }

    fn format_move(&self, take: u8) -> String {
        take.to_string()
    }
}

impl SearchHooks for Nim {
    /// No knowledge: the search must find every win by looking ahead.
    fn evaluate(&self) -> i32 {
        0
    }

    fn encode_move(take: u8) -> u16 {
        u16::from(take)
    }

    const HISTORY_SIZE: usize = 2 * (MOST as usize + 1);

    fn history_index(&self, take: u8) -> usize {
        self.side.index() * (usize::from(MOST) + 1) + usize::from(take)
    }
}

impl SearchRefinements for Nim {}

impl ExactHooks for Nim {}

fn pile(stones: u8) -> Nim {
    Nim {
        pile: stones,
        side: Player::First,
        ply: 0,
    }
}

/// The value of a pile from the side to move's view, by the theory of the game: a multiple
/// of four is lost after `2 * (pile / 4)` plies (whatever the loser takes, the winner makes
/// it four a round); any other pile is won after `1 + 2 * (pile / 4)` plies, by taking the
/// remainder first.
fn known_value(stones: u8) -> Score {
    let rounds = 2 * Score::from(stones / 4);
    if stones % 4 == 0 {
        -MATE + rounds
    } else {
        MATE - (rounds + 1)
    }
}

#[test]
fn the_search_core_plays_nim_perfectly() {
    let mut pool = ThreadPool::<Nim>::new(1);
    for stones in 1..=21 {
        let result = pool.search(&pile(stones), &Limits::depth(u32::from(stones)), &[]);
        assert_eq!(result.score, known_value(stones), "pile {stones}");
        if stones % 4 != 0 {
            assert_eq!(result.best, Some(stones % 4), "pile {stones}");
        }
    }
}

#[test]
fn the_core_exact_search_solves_nim() {
    let mut search = CoreSearch::<Nim>::new(1);
    for stones in 1..=21 {
        let value = search.value(&pile(stones), false, Some(1_000_000), &mut |_, _, _| {});
        assert_eq!(value, Some(known_value(stones)), "pile {stones}");
    }
}

#[test]
fn nim_text_round_trips_and_bad_text_is_refused() {
    let game = Nim::from_fen(&(), "6 o").expect("a pile of six");
    assert_eq!(
        (game.pile, game.side, game.to_fen()),
        (6, Player::Second, "6 o".into())
    );
    assert_eq!(
        Nim::from_fen(&(), &Nim::start(&()).to_fen()),
        Ok(Nim::start(&()))
    );
    for fen in ["", "6", "6 z", "-1 x", "256 x", "6 x 1"] {
        assert!(Nim::from_fen(&(), fen).is_err(), "{fen:?}");
    }
    let two = pile(2);
    assert_eq!(two.parse_move("2"), Ok(2));
    assert_eq!(two.parse_move("3"), Err(GameError::IllegalMove("3".into())));
    for text in ["0", "4", "x", ""] {
        assert_eq!(
            two.parse_move(text),
            Err(GameError::InvalidMove(text.into()))
        );
    }
}
