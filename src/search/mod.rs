//! The generic search core: every game plugs in through [`Game`]; nothing here knows a
//! particular game or the protocol.

pub mod events;
pub mod exact;
pub mod features;
pub mod game;
pub mod limits;
pub mod minimax;
pub mod ordering;
pub mod pool;
pub mod score;
pub mod searcher;
pub mod tt;

pub use events::{SearchEvent, SearchInfo, SearchResult};
pub use exact::ExactSearch;
pub use features::{SearchFeatures, SearchStats};
pub use game::{
    EndReason, Game, GameEnd, GameError, GameResult, MoveList, Outcome, Player, Pruning,
};
pub use limits::Limits;
pub use score::{Score, ScoreReport};
pub use searcher::{SearchControl, SearchSettings, Searcher};
pub use tt::TranspositionTable;
