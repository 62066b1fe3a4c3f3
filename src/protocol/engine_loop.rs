//! The protocol loop, above every front end: a reader thread forwards input lines, the
//! front end that [`Protocol`] chose (from the command line or the first input line)
//! executes them in order against the [`Controller`] (only a search runs in the
//! background), and a writer thread owns stdout.
//!
//! This is the only module that names the front ends: the UCI family ([`UciFamily`]: UCI,
//! UGI and UAI, which differ only in the words of their dialect) and the Gomocup protocol
//! ([`Gomocup`]). A new front end is a module of its own implementing [`FrontEnd`], a
//! variant of [`Protocol`] and a line in `new_front_end` here.

use std::io::{BufRead, Write};
use std::thread;

use crossbeam_channel::{unbounded, Receiver, Sender};

use super::controller::{BenchCommand, Controller};
use super::frontend::FrontEnd;
use super::gomocup::Gomocup;
use super::uci::UciFamily;
use crate::games::GameKind;

/// Which front end speaks on stdin/stdout.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    /// Chosen by the first input line: a Gomocup command (`START`, `RECTSTART`, `INFO`,
    /// `ABOUT`, any case) selects Gomocup, anything else the UCI family.
    #[default]
    Auto,
    /// UCI, UGI or UAI, chosen by the handshake.
    Uci,
    /// The Gomocup (piskvork) protocol of gomoku managers.
    Gomocup,
}

impl Protocol {
    /// The protocol an automatic start speaks after `first_line`, the first line that is
    /// not blank.
    pub fn detect(first_line: &str) -> Protocol {
        let word = first_line
            .trim_start_matches('\u{feff}')
            .split_whitespace()
            .next()
            .unwrap_or_default();
        let gomocup = ["START", "RECTSTART", "INFO", "ABOUT"]
            .iter()
            .any(|command| command.eq_ignore_ascii_case(word));
        if gomocup {
            Protocol::Gomocup
        } else {
            Protocol::Uci
        }
    }
}

/// Longest input line read, in bytes with its line end: a longer one is skipped whole
/// (never held in memory) and answered with an error. A `position ... moves` line of the
/// longest chess game fits many times over.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// What the reader thread hands the front end.
#[derive(Debug, PartialEq, Eq)]
enum Input {
    Line(String),
    /// A line longer than [`MAX_LINE_BYTES`], skipped: its length in bytes.
    TooLong(usize),
    Eof,
}

/// Runs the protocol until `quit` (Gomocup: `END`) or end of input, speaking `protocol`
/// (chosen by the first line that is not blank when it is [`Protocol::Auto`]), `bench`
/// answered by `bench`. Returns the process exit code.
pub fn run<R, W>(input: R, output: W, game: GameKind, bench: BenchCommand) -> i32
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    run_protocol(input, output, game, bench, Protocol::Auto)
}

/// [`run`] with the protocol chosen by the caller (`cutoff --protocol`).
pub fn run_protocol<R, W>(
    input: R,
    output: W,
    game: GameKind,
    bench: BenchCommand,
    protocol: Protocol,
) -> i32
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let (out_tx, out_rx) = unbounded::<String>();
    let writer = thread::Builder::new()
        .name("writer".to_string())
        .spawn(move || write_lines(output, out_rx));
    let (in_tx, in_rx) = unbounded::<Input>();
    // The reader may stay blocked on stdin after `quit`; it is not joined.
    let reader = thread::Builder::new()
        .name("reader".to_string())
        .spawn(move || read_lines(input, in_tx));
    if reader.is_err() {
        log::error!("cannot start the reader thread");
        return 1;
    }
    let mut controller = Controller::new(game, out_tx);
    let mut front_end: Option<Box<dyn FrontEnd>> = match protocol {
        Protocol::Auto => None,
        chosen => Some(new_front_end(chosen, bench)),
    };
    for input in in_rx.iter() {
        let line = match input {
            Input::Line(line) => line,
            Input::TooLong(bytes) => {
                let reason = format!(
                    "input line of {bytes} bytes ignored: lines are at most {MAX_LINE_BYTES} bytes"
                );
                front_end
                    .get_or_insert_with(|| new_front_end(Protocol::Uci, bench))
                    .refuse_input(&mut controller, &reason);
                continue;
            }
            Input::Eof => break,
        };
        let front_end = match &mut front_end {
            Some(front_end) => front_end,
            None if line.trim_start_matches('\u{feff}').trim().is_empty() => continue,
            None => front_end.insert(new_front_end(Protocol::detect(&line), bench)),
        };
        if !front_end.handle_line(&mut controller, &line) {
            break;
        }
    }
    controller.shutdown();
    drop(controller);
    if let Ok(writer) = writer {
        let _ = writer.join();
    }
    0
}

/// The front end of `protocol` (the UCI family for [`Protocol::Auto`]): the one place that
/// names every front end.
fn new_front_end(protocol: Protocol, bench: BenchCommand) -> Box<dyn FrontEnd> {
    match protocol {
        Protocol::Gomocup => Box::new(Gomocup::new()),
        Protocol::Auto | Protocol::Uci => Box::new(UciFamily::new(bench)),
    }
}

fn read_lines<R: BufRead>(mut input: R, to_controller: Sender<Input>) {
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        let mut limited = std::io::Read::take(&mut input, MAX_LINE_BYTES as u64);
        let next = match limited.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) if read == MAX_LINE_BYTES && buffer.last() != Some(&b'\n') => {
                match skip_line(&mut input) {
                    Ok(rest) => Input::TooLong(read + rest),
                    Err(_) => break,
                }
            }
            Ok(_) => Input::Line(String::from_utf8_lossy(&buffer).into_owned()),
        };
        if to_controller.send(next).is_err() {
            return;
        }
    }
    let _ = to_controller.send(Input::Eof);
}

/// Consumes the input up to its next line end (included) or its end, without keeping
/// it; returns how many bytes that was.
fn skip_line<R: BufRead>(input: &mut R) -> std::io::Result<usize> {
    let mut skipped = 0;
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(skipped);
        }
        match available.iter().position(|&byte| byte == b'\n') {
            Some(end) => {
                input.consume(end + 1);
                return Ok(skipped + end + 1);
            }
            None => {
                let length = available.len();
                input.consume(length);
                skipped += length;
            }
        }
    }
}

fn write_lines<W: Write>(mut output: W, lines: Receiver<String>) {
    for line in lines.iter() {
        log::debug!(">> {line}");
        if writeln!(output, "{line}")
            .and_then(|_| output.flush())
            .is_err()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_over_the_limit_is_skipped_whole_and_the_next_one_read() {
        let mut text = b"uci\n".to_vec();
        text.extend(vec![b'x'; MAX_LINE_BYTES + 10]);
        text.extend(b"\nisready\n");
        // Exactly the limit, its line end included, is still a line.
        text.extend(vec![b'y'; MAX_LINE_BYTES - 1]);
        text.extend(b"\n");
        // So is a last line without its end.
        text.extend(b"quit");
        let (sender, receiver) = unbounded();
        read_lines(std::io::Cursor::new(text), sender);
        let inputs: Vec<Input> = receiver.iter().collect();
        assert_eq!(inputs.len(), 6);
        assert_eq!(inputs[0], Input::Line("uci\n".to_string()));
        assert_eq!(inputs[1], Input::TooLong(MAX_LINE_BYTES + 11));
        assert_eq!(inputs[2], Input::Line("isready\n".to_string()));
        assert!(matches!(&inputs[3], Input::Line(line) if line.len() == MAX_LINE_BYTES));
        assert_eq!(inputs[4], Input::Line("quit".to_string()));
        assert_eq!(inputs[5], Input::Eof);
    }

    #[test]
    fn the_first_gomocup_command_selects_gomocup() {
        for line in [
            "START 15\n",
            "start 20",
            "RECTSTART 20,15",
            "INFO rule 0",
            "about",
        ] {
            assert_eq!(Protocol::detect(line), Protocol::Gomocup, "{line}");
        }
        for line in ["uci", "ugi", "uai", "isready", "BEGIN", "go", "\u{feff}uci"] {
            assert_eq!(Protocol::detect(line), Protocol::Uci, "{line}");
        }
    }
}
