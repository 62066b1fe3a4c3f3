//! The generic search core: every game plugs in through [`Game`]; nothing here knows a
//! particular game or the protocol, and nothing here prints (searches report
//! [`SearchEvent`]s).
//!
//! Where the search threads start: [`threads`]. Its [`ThreadPool`] owns the searchers of
//! all threads and the shared transposition table; [`ThreadPool::start`] spawns the main
//! search thread (non-blocking, for the protocol), [`ThreadPool::search`] runs the main
//! search on the caller's thread (blocking, for bench and datagen), and both spawn the Lazy
//! SMP helper threads, which share completed iterations through [`pool`]. One thread's
//! search is a [`Searcher`] ([`searcher`], in files by concern), tuned by the constants of
//! [`params`]; the tree statistics and the core exact search use its exact root search
//! ([`Searcher::search_root`]) directly, on the caller's thread. Exact play (the decision,
//! the book or solver's answer, the core exact search) is [`exact`].

pub mod correction;
pub mod events;
pub mod exact;
pub mod features;
pub mod game;
pub mod limits;
pub mod minimax;
pub mod ordering;
pub mod params;
pub mod perft;
pub mod pool;
pub mod reductions;
pub mod score;
pub mod searcher;
pub mod skill;
pub mod threads;
pub mod tt;
pub mod wdl;

#[cfg(test)]
mod equivalence_tests;

pub use events::{SearchEvent, SearchInfo, SearchResult};
pub use exact::ExactSearch;
pub use features::{SearchFeatures, SearchStats};
pub use game::{
    EndReason, ExactHooks, Game, GameEnd, GameError, GameResult, MoveList, Outcome, Player,
    Pruning, Rules, SearchHooks, SearchRefinements,
};
pub use limits::Limits;
pub use params::SearchParams;
pub use score::{Score, ScoreReport};
pub use searcher::{SearchControl, SearchSettings, Searcher};
pub use skill::{EloAnchor, Skill};
pub use threads::ThreadPool;
pub use tt::TranspositionTable;
pub use wdl::{Wdl, WdlModel};
