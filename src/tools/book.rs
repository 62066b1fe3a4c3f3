//! `cutoff book`: opening books built by a game's own solver. Connect Four's is the one
//! there is ([`connect4::book`]): `book build` writes the first player's winning strategy.

use clap::{Args, Subcommand};

use crate::games::connect4::{self, book::BuildOptions, Connect4};
use crate::games::GameKind;

/// `cutoff book`: what to do with the book.
#[derive(Args, Clone, Debug)]
pub struct BookArgs {
    /// The book action.
    #[command(subcommand)]
    pub action: BookAction,
}

/// The `cutoff book` actions.
#[derive(Subcommand, Clone, Debug)]
pub enum BookAction {
    /// Builds the first player's strategy book: a winning move for every first-player
    /// position at plies 0, 2, .. below PLIES reachable when the first player follows it.
    /// Entries are appended to OUT.partial as they are found (a stopped run resumes).
    Build {
        /// Plies the book covers.
        #[arg(long)]
        plies: u32,
        /// The finished book (sorted).
        #[arg(long)]
        out: String,
        /// The solver's table in MiB, kept from one position to the next.
        #[arg(long, default_value_t = 1024)]
        hash: usize,
    },
}

impl BookArgs {
    /// Builds the book (progress on stderr) and prints how many positions it holds.
    pub fn run(&self, game: GameKind) -> Result<(), String> {
        let BookAction::Build { plies, out, hash } = &self.action;
        if !game.plays::<Connect4>() {
            return Err(format!(
                "book build is for connect4 (its solver builds it), not {game}"
            ));
        }
        let options = BuildOptions {
            plies: *plies,
            out: out.into(),
            hash_mb: *hash,
            command: std::env::args().collect::<Vec<_>>().join(" "),
        };
        let count = connect4::book::build(&options, &mut std::io::stderr())?;
        println!("{count} positions");
        Ok(())
    }
}
