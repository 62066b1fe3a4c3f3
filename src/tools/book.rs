//! `cutoff book`: opening books built by a game's own solver. Connect Four's is the one
//! there is ([`connect4::book`]): `book build` writes the first player's winning strategy,
//! `book replies` the replies book ([`connect4::replies`]).

use clap::{Args, Subcommand};

use crate::games::connect4::{self, book::BuildOptions, replies::RepliesOptions, Connect4};
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
    /// Builds the replies book: a move keeping the value of every position at plies 1, 2,
    /// .. below PLIES that the opponent can reach against these replies (the second
    /// player's, and the first player's after an opening stone other than the book's).
    /// Entries are appended to OUT.partial as they are found (a stopped run resumes).
    Replies {
        /// Plies the book covers.
        #[arg(long)]
        plies: u32,
        /// The finished book (sorted).
        #[arg(long)]
        out: String,
        /// The solver's table in MiB, kept from one position to the next.
        #[arg(long, default_value_t = 1024)]
        hash: usize,
        /// Nodes per move when the latest loss of a lost position is looked for.
        #[arg(long, default_value_t = 1_000_000)]
        loss_budget: u64,
    },
}

impl BookArgs {
    /// Builds the book (progress on stderr) and prints how many positions it holds.
    pub fn run(&self, game: GameKind) -> Result<(), String> {
        if !game.plays::<Connect4>() {
            return Err(format!(
                "book is for connect4 (its solver builds it), not {game}"
            ));
        }
        let command = std::env::args().collect::<Vec<_>>().join(" ");
        let count = match &self.action {
            BookAction::Build { plies, out, hash } => {
                let options = BuildOptions {
                    plies: *plies,
                    out: out.into(),
                    hash_mb: *hash,
                    command,
                };
                connect4::book::build(&options, &mut std::io::stderr())?
            }
            BookAction::Replies {
                plies,
                out,
                hash,
                loss_budget,
            } => {
                let options = RepliesOptions {
                    plies: *plies,
                    out: out.into(),
                    hash_mb: *hash,
                    loss_budget: *loss_budget,
                    command,
                };
                connect4::replies::build(&options, &mut std::io::stderr())?
            }
        };
        println!("{count} positions");
        Ok(())
    }
}
