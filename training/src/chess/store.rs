//! Chess's games in the store: viriformat (Viridithas' and bullet's game format, the
//! `viriformat` crate), its fields laid out in planes, in the store's blocks
//! ([`crate::blocks`], tag `VIR1`).
//!
//! A viriformat game ([`StoredGame::to_viriformat`], what the crate's
//! `Game::serialise_into` writes) is its start position as marlinformat's 32-byte
//! `PackedBoard` (occupancy, a 4-bit code per piece with 6 for a rook that can castle, side
//! to move and en-passant square, the clocks, White's result: 0 lost, 1 drawn, 2 won),
//! then 4 bytes a move (its 16-bit code: from, to, promotion and a flag for promotion, en
//! passant or castling, castling as king-takes-rook like cozy-chess; then the search's
//! score of the position before it from White's view, `i16`), then 4 zero bytes: 4.3
//! bytes a move, and 3.6 once zstd has compressed it at level 19 (50 games at 5,000 nodes).
//! The store keeps the same fields, each game, uncompressed:
//!
//! | bytes | what |
//! |---|---|
//! | 32 | the start position (after the opening): viriformat's `PackedBoard`, as it is |
//! | 2 | the number of moves `n` (`u16`) |
//! | n | each move's from square (bits 0-5 of its viriformat code) |
//! | n | each move's to square (bits 6-11) |
//! | n | each move's promotion and flags (bits 12-15) |
//! | 2n | each move's score from White's view: its difference from the last move's (0 before the first), zigzag-coded, the `n` low bytes then the `n` high bytes |
//!
//! Like bytes side by side compress better (2.8 bytes a move for the same games, against
//! 3.6), and the bytes of viriformat are found again exactly ([`StoredGame::decode`], then
//! [`StoredGame::to_viriformat`] for Viridithas' and bullet's tools).
//!
//! Every move is stored, in check or not, capture or not: the positions chess's datagen
//! keeps for training (`chess::records::is_kept`: past the first plies, not in check, a
//! quiet best move, no bare king) are found again by replaying the moves, and need nothing
//! else (a mate score ends a game before its move, so it is never stored).
//!
//! Chess's [`VIRIFORMAT`] is its store format: a stored game reads as a game record
//! ([`StoredGame::to_record`]) whose move codes are viriformat's ([`move_code`], chess's
//! record codes) and whose scores are the side to move's, which the store's one reader
//! replays as every game's. Reading is cutoff's own, on cozy-chess: nothing in a file,
//! however damaged, makes it panic; a move that is not legal where it was played, or whose
//! flags do not match it, ends its game's replay with an error naming it.

use cozy_chess::{Board, BoardBuilder, Color, Move, Piece, Square};
use viriformat::chess::board::{Board as ViriBoard, DrawType, GameOutcome, WinType};
use viriformat::chess::chessmove::Move as ViriMove;
use viriformat::dataformat::Game as ViriGame;

use crate::blocks;
use crate::records::{
    push_planes, unzigzag, zigzag, GameRecord, Reader, RecordedMove, StoreFormat,
};

/// The bytes of a game's start position (marlinformat's `PackedBoard`).
pub const PACKED_BOARD_BYTES: usize = 32;
/// The bytes of a move and its score.
const MOVE_BYTES: usize = 4;
/// Where the start position keeps White's result.
const WDL_BYTE: usize = 30;

/// viriformat's flag bits of a promotion, an en-passant capture and castling.
const PROMOTION: u16 = 0xc000;
const EN_PASSANT: u16 = 0x4000;
const CASTLING: u16 = 0x8000;

/// Chess's store format: viriformat games in planes, in blocks tagged `VIR1`.
pub const VIRIFORMAT: StoreFormat = StoreFormat {
    blocks: blocks::VIRIFORMAT,
    encode: encode_record,
    decode: decode_record,
};

/// Appends the store's bytes of a chess game record (its move codes viriformat's, its
/// scores the side to move's) to `out` ([`encode_game`]).
pub fn encode_record(record: &GameRecord, out: &mut Vec<u8>) -> Result<(), String> {
    let start = Board::from_fen(&record.start, false)
        .map_err(|_| format!("start position '{}' is no chess position", record.start))?;
    let mut board = start.clone();
    let mut moves = Vec::with_capacity(record.moves.len());
    for (ply, recorded) in record.moves.iter().enumerate() {
        let mv = move_of_code(&board, recorded.code).ok_or_else(|| {
            format!(
                "move {} (code {:#06x}) is not legal",
                ply + 1,
                recorded.code
            )
        })?;
        moves.push((mv, recorded.score));
        board.play_unchecked(mv);
    }
    encode_game(&start, &moves, record.result, out)
}

/// Reads one stored chess game from the front of `bytes` as a game record: the game and
/// the bytes it took.
pub fn decode_record(bytes: &[u8]) -> Result<(GameRecord, usize), String> {
    let (game, used) = StoredGame::decode(bytes)?;
    Ok((game.to_record()?, used))
}

/// Appends the store's bytes of a game to `out` (viriformat's, made by the crate, in
/// planes): its start position, the moves played with the search's scores (side to move's
/// view, as the search gives them) and White's result (0 lost, 1 drawn, 2 won). An error
/// if viriformat does not read the start position or a move is not legal.
pub fn encode_game(
    start: &Board,
    moves: &[(Move, i16)],
    white_result: u8,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let mut viri_start = ViriBoard::new();
    viri_start
        .set_from_fen(&start.to_string(), false)
        .map_err(|e| format!("viriformat refuses the start position '{start}': {e}"))?;
    let mut game = ViriGame::new(&viri_start);
    let mut board = start.clone();
    for (ply, &(mv, score)) in moves.iter().enumerate() {
        let illegal = || format!("move {} ({mv}) is not legal", ply + 1);
        let code = ViriMove::from_raw(move_code(&board, mv)).ok_or_else(illegal)?;
        game.add_move(code, white_view(&board, score));
        board.try_play(mv).map_err(|_| illegal())?;
    }
    game.set_outcome(match white_result {
        2 => GameOutcome::WhiteWin(WinType::Adjudication),
        0 => GameOutcome::BlackWin(WinType::Adjudication),
        _ => GameOutcome::Draw(DrawType::Adjudication),
    });
    let mut viriformat = Vec::new();
    game.serialise_into(&mut viriformat)
        .map_err(|e| format!("cannot encode a game: {e}"))?;
    StoredGame::from_viriformat(&viriformat)?.0.encode(out)
}

/// viriformat's code of the cozy-chess move `mv` in `board` (the move's flags read from the
/// board: castling is king-takes-rook in both).
pub fn move_code(board: &Board, mv: Move) -> u16 {
    let mut code = mv.from as u16 | (mv.to as u16) << 6;
    let mover = board.piece_on(mv.from);
    if let Some(piece) = mv.promotion {
        // Knight to queen as 0 to 3.
        code |= PROMOTION | ((piece as u16).wrapping_sub(1) & 3) << 12;
    } else if mover == Some(Piece::King) && board.color_on(mv.to) == Some(board.side_to_move()) {
        code |= CASTLING;
    } else if mover == Some(Piece::Pawn)
        && mv.from.file() != mv.to.file()
        && board.piece_on(mv.to).is_none()
    {
        code |= EN_PASSANT;
    }
    code
}

/// The legal move of `board` whose viriformat code is `code`, if there is one.
pub fn move_of_code(board: &Board, code: u16) -> Option<Move> {
    let square = |bits: u16| Square::try_index(usize::from(bits & 63));
    let promotion = (code & PROMOTION == PROMOTION)
        .then(|| Piece::try_index(usize::from((code >> 12) & 3) + 1))
        .flatten();
    let mv = Move {
        from: square(code)?,
        to: square(code >> 6)?,
        promotion,
    };
    (board.is_legal(mv) && move_code(board, mv) == code).then_some(mv)
}

/// A score from the side to move's view as White's.
fn white_view(board: &Board, score: i16) -> i16 {
    match board.side_to_move() {
        Color::White => score,
        Color::Black => score.saturating_neg(),
    }
}

/// One stored game as read: its start position and its moves with White's scores, still
/// in viriformat's codes ([`StoredGame::to_record`] reads them as a game record).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// The start position, marlinformat's `PackedBoard`.
    pub start: [u8; PACKED_BOARD_BYTES],
    /// Each move's viriformat code and the search's score from White's view.
    pub moves: Vec<(u16, i16)>,
}

impl StoredGame {
    /// Reads one game in viriformat from the front of `bytes`, returning it and the bytes
    /// it took.
    pub fn from_viriformat(bytes: &[u8]) -> Result<(StoredGame, usize), String> {
        let mut reader = Reader { bytes, at: 0 };
        let start = read_start(&mut reader)?;
        let mut moves = Vec::new();
        loop {
            let b = reader.take(MOVE_BYTES)?;
            if b == [0; MOVE_BYTES] {
                break;
            }
            let code = u16::from_le_bytes([b[0], b[1]]);
            moves.push((code, i16::from_le_bytes([b[2], b[3]])));
        }
        Ok((StoredGame { start, moves }, reader.at))
    }

    /// Appends the game in viriformat to `out`, as the crate's `Game::serialise_into`
    /// writes it.
    pub fn to_viriformat(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.start);
        for &(code, score) in &self.moves {
            out.extend_from_slice(&code.to_le_bytes());
            out.extend_from_slice(&score.to_le_bytes());
        }
        out.extend_from_slice(&[0; MOVE_BYTES]);
    }

    /// Appends the game's bytes in the store (the module's table) to `out`; an error for
    /// a game of over 65,535 moves.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), String> {
        let count = u16::try_from(self.moves.len())
            .map_err(|_| format!("game of {} moves", self.moves.len()))?;
        out.extend_from_slice(&self.start);
        out.extend_from_slice(&count.to_le_bytes());
        let codes = self.moves.iter().map(|&(code, _)| code);
        out.extend(codes.clone().map(|code| (code & 63) as u8));
        out.extend(codes.clone().map(|code| (code >> 6 & 63) as u8));
        out.extend(codes.map(|code| (code >> 12) as u8));
        let before = std::iter::once(0).chain(self.moves.iter().map(|&(_, score)| score));
        let deltas = self
            .moves
            .iter()
            .zip(before)
            .map(|(&(_, score), previous)| zigzag(score.wrapping_sub(previous)));
        push_planes(out, deltas);
        Ok(())
    }

    /// Reads one game in the store's layout from the front of `bytes`, returning it and
    /// the bytes it took.
    pub fn decode(bytes: &[u8]) -> Result<(StoredGame, usize), String> {
        let mut reader = Reader { bytes, at: 0 };
        let start = read_start(&mut reader)?;
        let count = usize::from(reader.u16()?);
        let from = reader.take(count)?;
        let to = reader.take(count)?;
        let flags = reader.take(count)?;
        if from.iter().chain(to).any(|&square| square >= 64) || flags.iter().any(|&f| f >= 16) {
            return Err("a move's square or flags out of range".into());
        }
        let deltas = reader.planes(count)?;
        let mut previous = 0i16;
        let moves = (0..count)
            .zip(deltas)
            .map(|(i, delta)| {
                let code = u16::from(from[i]) | u16::from(to[i]) << 6 | u16::from(flags[i]) << 12;
                previous = previous.wrapping_add(unzigzag(delta));
                (code, previous)
            })
            .collect();
        Ok((StoredGame { start, moves }, reader.at))
    }

    /// White's result as stored: 0 lost, 1 drawn, 2 won (any other byte is refused by
    /// [`StoredGame::to_record`]).
    pub fn white_result(&self) -> u8 {
        self.start[WDL_BYTE]
    }

    /// The start position, or why the bytes are none.
    pub fn start_board(&self) -> Result<Board, String> {
        unpack_board(&self.start)
    }

    /// The game as a game record: its start position's FEN, each move's viriformat code
    /// with the search's score from the side to move's view, and the result. An error if
    /// the start position or the result is no position or result.
    pub fn to_record(&self) -> Result<GameRecord, String> {
        if self.white_result() > 2 {
            return Err(format!("result byte {}", self.white_result()));
        }
        let start = self.start_board()?;
        let white_first = start.side_to_move() == Color::White;
        let moves = self
            .moves
            .iter()
            .enumerate()
            .map(|(ply, &(code, white_score))| {
                let white_moves = white_first == (ply % 2 == 0);
                RecordedMove {
                    code,
                    score: if white_moves {
                        white_score
                    } else {
                        white_score.saturating_neg()
                    },
                }
            })
            .collect();
        Ok(GameRecord {
            game: "chess".to_string(),
            start: start.to_string(),
            moves,
            result: self.white_result(),
        })
    }
}

/// The start position's bytes at the front of `reader`.
fn read_start(reader: &mut Reader) -> Result<[u8; PACKED_BOARD_BYTES], String> {
    let bytes = reader.take(PACKED_BOARD_BYTES)?;
    bytes.try_into().map_err(|_| "a game cut short".to_string())
}

/// The cozy-chess board of marlinformat's `PackedBoard` bytes, as viriformat unpacks
/// them (a rook coded 6 can castle: short if its king came before it, else long), or
/// why they are no position.
pub fn unpack_board(bytes: &[u8; PACKED_BOARD_BYTES]) -> Result<Board, String> {
    let occupancy = u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default());
    if occupancy.count_ones() > 32 {
        return Err("a start position of more than 32 pieces".into());
    }
    let mut builder = BoardBuilder::empty();
    let mut seen_king = [false; 2];
    let squares = (0..64).filter(|&i| occupancy >> i & 1 == 1);
    for (i, index) in squares.enumerate() {
        let nibble = bytes[8 + i / 2] >> (4 * (i % 2)) & 15;
        let color = if nibble & 8 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let square = Square::index(index);
        let piece = match nibble & 7 {
            6 => {
                let rights = &mut builder.castle_rights[color as usize];
                let side = if seen_king[color as usize] {
                    &mut rights.short
                } else {
                    &mut rights.long
                };
                *side = Some(square.file());
                Piece::Rook
            }
            code => Piece::try_index(usize::from(code))
                .ok_or_else(|| format!("piece code {code} on {square}"))?,
        };
        seen_king[color as usize] |= piece == Piece::King;
        builder.board[index] = Some((piece, color));
    }
    builder.side_to_move = if bytes[24] >> 7 == 0 {
        Color::White
    } else {
        Color::Black
    };
    builder.en_passant = match bytes[24] & 127 {
        64 => None,
        index => Some(
            Square::try_index(usize::from(index))
                .ok_or_else(|| format!("en-passant square {index}"))?,
        ),
    };
    builder.halfmove_clock = bytes[25];
    builder.fullmove_number = u16::from_le_bytes([bytes[26], bytes[27]]);
    builder
        .build()
        .map_err(|e| format!("no chess position: {e:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::FileGames;
    use crate::chess::records::SKIP_PLIES;
    use crate::selfplay::{self, read_book, DataFormat, DatagenOptions, DatagenSummary};
    use crate::store::{self, StoreFilter, StoreStats};
    use bulletformat::{BulletFormat, ChessBoard};
    use cutoff::games::chess::{Chess, ChessVariant};
    use std::path::{Path, PathBuf};
    use viriformat::chess::piece::Colour;

    /// Positions with every kind of move: castling both ways for both sides, en passant,
    /// promotions with and without a capture.
    const FENS: [&str; 5] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b Kq - 3 7",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "r1bq1k1r/pPpp1ppp/8/8/8/8/1PPP1PpP/RNBQK2R b KQ - 0 12",
    ];

    /// The options of the acceptance runs: a fixed seed, 300 nodes a move.
    fn options(format: DataFormat, games: usize, first_game: usize) -> DatagenOptions {
        DatagenOptions {
            games,
            first_game,
            nodes: 300,
            threads: 2,
            random_plies: (4, 4),
            format,
            seed: 5,
            hash_mb: 1,
            net: None,
        }
    }

    fn generate(options: &DatagenOptions) -> (Vec<u8>, DatagenSummary) {
        let book = read_book("e2e4 e7e5\nd2d4 d7d5 c2c4\ne2e4 c7c5 g1f3\n");
        let mut out = Vec::new();
        let summary = selfplay::run::<Chess>(options, &book, &mut out, &mut |_| {}).unwrap();
        (out, summary)
    }

    /// A fresh directory for a test's files.
    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cutoff-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn read(files: &[&Path]) -> (StoreStats, Vec<u8>) {
        let files: Vec<PathBuf> = files.iter().map(|f| f.to_path_buf()).collect();
        let mut out = Vec::new();
        let filter = StoreFilter::default();
        let stats = store::read_training_records::<Chess>(&files, &filter, false, &mut out);
        (stats.unwrap(), out)
    }

    /// The stored games of a file's blocks, as they are.
    fn read_games(bytes: &[u8], name: &str) -> FileGames<StoredGame> {
        blocks::read_blocks(bytes, name, blocks::VIRIFORMAT, &mut StoredGame::decode)
    }

    #[test]
    fn move_codes_are_viriformats_both_ways() {
        for fen in FENS {
            let board: Board = fen.parse().unwrap();
            let mut viri = ViriBoard::new();
            viri.set_from_fen(fen, false).unwrap();
            let mut moves = Vec::new();
            board.generate_moves(|list| {
                moves.extend(list);
                false
            });
            for &mv in &moves {
                // viriformat reads standard UCI: castling is the king's two squares.
                let mut to = mv.to;
                if move_code(&board, mv) & PROMOTION == CASTLING {
                    let file = if mv.to > mv.from { "g" } else { "c" };
                    to = format!("{file}{}", mv.from.rank() as u8 + 1)
                        .parse()
                        .unwrap();
                }
                let uci = Move { to, ..mv }.to_string();
                let code = viri.parse_uci(&uci).unwrap().inner();
                assert_eq!(move_code(&board, mv), code, "{fen} {uci}");
                assert_eq!(move_of_code(&board, code), Some(mv), "{fen} {uci}");
            }
            // A code whose flag does not match its move, or no legal move, is refused.
            let codes = moves.iter().map(|&mv| move_code(&board, mv));
            let quiet = codes.clone().find(|code| code & PROMOTION == 0).unwrap();
            assert_eq!(move_of_code(&board, quiet | EN_PASSANT), None, "{fen}");
            assert_eq!(move_of_code(&board, quiet | CASTLING), None, "{fen}");
            assert_eq!(move_of_code(&board, 0), None, "{fen}");
        }
    }

    #[test]
    fn start_positions_unpack_as_viriformat_packs_them() {
        for fen in FENS {
            let mut viri = ViriBoard::new();
            viri.set_from_fen(fen, false).unwrap();
            let packed = viri.to_marlinformat(0, 1, 0).as_bytes();
            let board: Board = fen.parse().unwrap();
            assert_eq!(unpack_board(&packed), Ok(board), "{fen}");
        }
        // Bytes that are no position are refused, never a panic.
        let mut packed = {
            let mut viri = ViriBoard::new();
            viri.set_from_fen(FENS[0], false).unwrap();
            viri.to_marlinformat(0, 1, 0).as_bytes()
        };
        packed[8] |= 7;
        assert!(unpack_board(&packed).unwrap_err().contains("piece code 7"));
        assert!(unpack_board(&[0xff; 32]).unwrap_err().contains("32 pieces"));
        assert!(unpack_board(&[0; 32]).is_err());
    }

    #[test]
    fn records_replay_to_the_bullet_records_of_the_same_games() {
        let (bullet, summary) = generate(&options(DataFormat::Bullet, 3, 0));
        let (stored, stored_summary) = generate(&options(DataFormat::Records, 3, 0));
        // The same games; a game record counts every position played, bullet the kept.
        assert_eq!(summary.games, stored_summary.games);
        assert!(summary.positions > 30, "{summary:?}");
        assert!(
            stored_summary.positions > summary.positions,
            "{stored_summary:?}"
        );
        assert!(stored.starts_with(b"VIR1"));
        let dir = scratch("chess-store");
        let file = dir.join("chess.cgr");
        std::fs::write(&file, &stored).unwrap();
        let (stats, replayed) = read(&[&file]);
        assert!(stats.errors.is_empty(), "{:?}", stats.errors);
        assert_eq!((stats.games, stats.kept), (3, summary.positions));
        assert_eq!(stats.moves, stored_summary.positions);
        assert_eq!(replayed, bullet);
        // viriformat's own reader (checking every move against its move generator in a
        // debug build) reads the same games and splats them to the same bullet records.
        let mut viriformat = Vec::new();
        for game in read_games(&stored, "chess.cgr").games {
            game.to_viriformat(&mut viriformat);
        }
        let mut reader = &viriformat[..];
        let mut splatted = Vec::new();
        while !reader.is_empty() {
            let game = ViriGame::deserialise_from(&mut reader, Vec::new()).unwrap();
            let mut ply = 0;
            let keep = |mv, _, board: &ViriBoard, _, _: &mut _| {
                let bare = Colour::all().any(|c| board.pieces.occupied_co(c).count() == 1);
                ply += 1;
                ply <= SKIP_PLIES || board.in_check() || board.is_tactical(mv) || bare
            };
            let push = |record| {
                splatted.push(record);
                Ok(())
            };
            game.splat_to_bulletformat_with_filter_callback(push, keep)
                .unwrap();
        }
        assert_eq!(ChessBoard::as_bytes_slice(&splatted), &bullet[..]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_store_holds_viriformat_exactly() {
        let (stored, _) = generate(&options(DataFormat::Records, 3, 0));
        let games = read_games(&stored, "chess.cgr").games;
        assert_eq!(games.len(), 3);
        for game in &games {
            let mut bytes = Vec::new();
            game.to_viriformat(&mut bytes);
            assert_eq!(
                StoredGame::from_viriformat(&bytes),
                Ok((game.clone(), bytes.len()))
            );
            let viri = ViriGame::deserialise_from(&mut &bytes[..], Vec::new()).unwrap();
            let mut again = Vec::new();
            viri.serialise_into(&mut again).unwrap();
            assert_eq!(again, bytes);
            assert_eq!(viri.len(), game.moves.len());
        }
        // Scores at the ends of i16 and every flag survive the planes.
        let mut extreme = games[0].clone();
        let scores = [i16::MIN, i16::MAX, -1, i16::MAX, i16::MIN, 0];
        for ((code, score), new) in extreme.moves.iter_mut().zip(scores) {
            *score = new;
            *code |= 0xf000;
        }
        let mut bytes = Vec::new();
        extreme.encode(&mut bytes).unwrap();
        assert_eq!(StoredGame::decode(&bytes), Ok((extreme, bytes.len())));
    }

    #[test]
    fn damage_costs_only_its_block_and_another_games_file_is_named() {
        // Three blocks: one game each.
        let blocks: Vec<Vec<u8>> = (0..3)
            .map(|game| generate(&options(DataFormat::Records, 1, game)).0)
            .collect();
        let file = blocks.concat();
        let (second, third) = (blocks[0].len(), blocks[0].len() + blocks[1].len());
        let dir = scratch("chess-damaged");
        let path = |name: &str| dir.join(name);
        let mut flipped = file.clone();
        flipped[second + blocks::HEADER_BYTES + 30] ^= 0x10;
        std::fs::write(path("flipped.cgr"), &flipped).unwrap();
        std::fs::write(path("cut.cgr"), &file[..file.len() - 5]).unwrap();
        std::fs::write(path("whole.cgr"), &file).unwrap();
        let (whole, whole_records) = read(&[&path("whole.cgr")]);
        assert_eq!((whole.games, whole.errors.len()), (3, 0));
        let (stats, _) = read(&[&path("flipped.cgr"), &path("whole.cgr")]);
        assert_eq!(stats.games, 5);
        let name = path("flipped.cgr").display().to_string();
        assert_eq!(stats.errors.len(), 1, "{:?}", stats.errors);
        assert!(
            stats.errors[0].starts_with(&format!("{name}: offset {second}: damaged block")),
            "{}",
            stats.errors[0]
        );
        let (cut, cut_records) = read(&[&path("cut.cgr")]);
        assert_eq!(cut.games, 2);
        let name = path("cut.cgr").display().to_string();
        assert_eq!(cut.errors.len(), 1, "{:?}", cut.errors);
        assert!(
            cut.errors[0].starts_with(&format!("{name}: offset {third}: a block of")),
            "{}",
            cut.errors[0]
        );
        assert!(cut.errors[0].ends_with("cut short"), "{}", cut.errors[0]);
        assert_eq!(cut_records, whole_records[..cut_records.len()]);
        // An Ataxx store file beside a chess one: named, and the chess games still read.
        let mut ataxx = Vec::new();
        let ataxx_options = DatagenOptions {
            nodes: 50,
            ..options(DataFormat::Records, 1, 0)
        };
        selfplay::run::<cutoff::games::ataxx::Ataxx>(&ataxx_options, &[], &mut ataxx, &mut |_| {})
            .unwrap();
        std::fs::write(path("ataxx.cgr"), &ataxx).unwrap();
        let (mixed, mixed_records) = read(&[&path("ataxx.cgr"), &path("whole.cgr")]);
        assert_eq!((mixed.files, mixed.games), (2, 3));
        assert_eq!(mixed_records, whole_records);
        let name = path("ataxx.cgr").display().to_string();
        assert_eq!(
            mixed.errors,
            vec![format!(
                "{name}: offset 0: a block of cutoff game records, not of viriformat chess games"
            )]
        );
        // And a chess file read as Ataxx's.
        let as_ataxx = store::read_games::<cutoff::games::ataxx::Ataxx>(&file, "chess.cgr");
        assert!(as_ataxx.games.is_empty());
        assert_eq!(
            as_ataxx.errors,
            vec!["chess.cgr: offset 0: a block of viriformat chess games, not of cutoff game records"]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_game_that_does_not_replay_is_named_and_never_panics() {
        let (stored, _) = generate(&options(DataFormat::Records, 1, 0));
        let raw = zstd::stream::decode_all(&stored[blocks::HEADER_BYTES..]).unwrap();
        let (game, used) = StoredGame::decode(&raw).unwrap();
        assert_eq!(used, raw.len());
        assert!(game.start_board().is_ok());
        let variant = ChessVariant {
            chess960: false,
            net: None,
            tablebases: None,
        };
        let replay = |game: &StoredGame| {
            let record = game.to_record()?;
            store::replay::<Chess>(&variant, &record, &mut |_, _, _, _| {})
        };
        assert_eq!(replay(&game), Ok(()));
        let mut bad = game.clone();
        bad.moves[2].0 ^= 0x0fff;
        let error = replay(&bad).unwrap_err();
        assert!(error.starts_with("move 3 (code"), "{error}");
        // A record that does not replay is not written either.
        let mut bytes = Vec::new();
        let error = encode_record(&bad.to_record().unwrap(), &mut bytes).unwrap_err();
        assert!(error.starts_with("move 3 (code"), "{error}");
        let mut bad = game.clone();
        bad.start[WDL_BYTE] = 3;
        assert_eq!(replay(&bad), Err("result byte 3".into()));
        assert_eq!(
            StoredGame::decode(&raw[..raw.len() - 1]),
            Err("a game cut short".into())
        );
        // Every single-byte change of a game's bytes decodes or is refused, never panics.
        for at in 0..raw.len().min(200) {
            let mut changed = raw.clone();
            changed[at] ^= 0x5a;
            if let Ok((game, _)) = StoredGame::decode(&changed) {
                let _ = replay(&game);
            }
        }
    }

    #[test]
    fn a_stored_game_reads_as_its_record_and_is_written_again() {
        let (stored, _) = generate(&options(DataFormat::Records, 2, 0));
        let games = store::read_games::<Chess>(&stored, "chess.cgr");
        assert!(games.errors.is_empty(), "{:?}", games.errors);
        let mut raw = Vec::new();
        for record in &games.games {
            encode_record(record, &mut raw).unwrap();
        }
        let block = blocks::encode_block(blocks::VIRIFORMAT, &raw, games.games.len()).unwrap();
        assert_eq!(block, stored);
    }
}
