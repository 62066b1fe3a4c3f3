//! The schedule of a match: the openings in the order they are played, who plays whom
//! (round robin or gauntlet), and the queue of games, rounds × pairings × games, a game
//! pair sharing its opening with colours swapped.

use std::collections::VecDeque;

use super::config::{MatchConfig, Tournament};
use super::openings::parse_book;
use crate::referee::Opening;
use cutoff::rng::shuffle;
use cutoff::search::Game;

/// One game to play.
#[derive(Clone, Debug)]
pub(super) struct Job {
    /// Index of the pairing in [`pairings`].
    pub(super) pairing: usize,
    /// Round, from 0.
    pub(super) round: usize,
    /// Game within the round's pair, from 0 (1: the colours swapped).
    pub(super) game: usize,
    /// Where the game starts.
    pub(super) opening: Opening,
    /// Engine indices, first player first.
    pub(super) players: [usize; 2],
}

/// The openings a match plays, in order: the book's (each checked against the rules,
/// shuffled when asked, from the chosen start), or the start position without a book.
pub(super) fn openings<G: Game>(
    config: &MatchConfig,
    variant: &G::Variant,
) -> Result<Vec<Opening>, String> {
    let Some(book) = &config.openings else {
        return Ok(vec![Opening::default()]);
    };
    let text = std::fs::read_to_string(&book.file)
        .map_err(|e| format!("cannot read {}: {e}", book.file.display()))?;
    let mut list = Vec::new();
    for (line, mut opening) in parse_book(&text, book.format) {
        let at = |e: String| format!("{} line {line}: {e}", book.file.display());
        opening.complete_fen::<G>(variant).map_err(at)?;
        opening.position::<G>(variant).map_err(at)?;
        list.push(opening);
    }
    if list.is_empty() {
        return Err(format!("{} has no openings", book.file.display()));
    }
    if book.random {
        shuffle(&mut list, config.seed);
    }
    let start = (book.start.max(1) - 1) % list.len();
    list.rotate_left(start);
    Ok(list)
}

/// Pairs of engine indices that play each other.
pub(super) fn pairings(config: &MatchConfig) -> Vec<[usize; 2]> {
    let n = config.engines.len();
    match config.tournament {
        Tournament::Gauntlet => (1..n).map(|j| [0, j]).collect(),
        Tournament::RoundRobin => (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| [i, j]))
            .collect(),
    }
}

/// The games in the order they are played: each round plays the next opening in every
/// pairing, once or as a pair with the colours swapped.
pub(super) fn jobs(
    config: &MatchConfig,
    pairs: &[[usize; 2]],
    openings: &[Opening],
) -> VecDeque<Job> {
    let mut queue = VecDeque::new();
    for round in 0..config.rounds {
        let opening = &openings[round % openings.len()];
        for (pairing, pair) in pairs.iter().enumerate() {
            for game in 0..config.games {
                let players = if game % 2 == 0 {
                    *pair
                } else {
                    [pair[1], pair[0]]
                };
                queue.push_back(Job {
                    pairing,
                    round,
                    game,
                    opening: opening.clone(),
                    players,
                });
            }
        }
    }
    queue
}
