//! Training the chess evaluation on cutoff's own games: chess's self-play and records
//! ([`datagen`]: text `FEN;result` lines and bullet `ChessBoard` records), reached by
//! `cutoff datagen`, `train` and `data` through [`TRAINING`] in the registry; `cutoff tune`
//! fits the hand-crafted evaluation's weights ([`tune`], its command line in [`cli`]);
//! `cutoff data convert` turns text lines into records ([`records`]). The trainer itself is
//! generic, [`crate::nnue::train`], re-exported here as [`train`].

pub mod cli;
pub mod datagen;
pub mod records;
pub use crate::nnue::train;
pub mod tune;

use crate::games::TrainingSupport;
use crate::nnue::selfplay::DataFormat;

/// How chess trains its net in the registry: `Chess768` inputs (or mirrored and king
/// bucketed ones, [`super::nnue::FEATURE_SETS`]), text or bullet
/// `ChessBoard` records.
pub const TRAINING: TrainingSupport = TrainingSupport {
    features: &super::nnue::FEATURE_SETS,
    formats: &[DataFormat::Text, DataFormat::Bullet],
    record_bytes: datagen::BULLET_RECORD_BYTES,
    datagen: crate::nnue::selfplay::run::<super::Chess>,
    train: |bytes, validation, settings, report| {
        let decode = datagen::decode_bullet;
        train::train_on(&decode(bytes), &decode(validation), settings, report)
    },
    check: |bytes| train::check_positions(&datagen::decode_bullet(bytes)),
};
