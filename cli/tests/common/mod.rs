//! A handle on the real `cutoff` binary for protocol tests: write lines, read lines with
//! timeouts, so a hung engine fails the test instead of hanging it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// Default time to wait for an answer.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// Waits for `child` to exit, at most `timeout`; kills it when the time is up (`None`).
pub fn wait_or_kill(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            return Some(status);
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        thread::sleep(Duration::from_millis(100));
    }
}

/// A running engine process.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line read so far, for failure messages.
    pub transcript: Vec<String>,
    /// `readyok`s the engine owes: `isready` lines sent whose answer was not read yet.
    unanswered_isready: usize,
}

impl Engine {
    /// Starts `cutoff` with extra arguments (e.g. `--game connect4`).
    pub fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cutoff"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the engine binary starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(line) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
            transcript: Vec::new(),
            unanswered_isready: 0,
        }
    }

    /// Starts the engine for a game.
    pub fn game(name: &str) -> Engine {
        Engine::start(&["--game", name])
    }

    /// Sends one line (a newline is added).
    pub fn send(&mut self, line: &str) {
        self.send_raw(&format!("{line}\n"));
    }

    /// Sends bytes as they are.
    pub fn send_raw(&mut self, text: &str) {
        let is_isready = |line: &str| line.split_whitespace().eq(["isready"]);
        self.unanswered_isready += text.split('\n').filter(|line| is_isready(line)).count();
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(text.as_bytes()).expect("write to engine");
        stdin.flush().expect("flush to engine");
    }

    /// Closes stdin (EOF).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, or `None` after `timeout`.
    pub fn read_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                if line == "readyok" {
                    self.unanswered_isready = self.unanswered_isready.saturating_sub(1);
                }
                self.transcript.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads until a line starting with `prefix`; returns all lines read, that one last.
    pub fn read_until(&mut self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.read_line(left) {
                Some(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                None => panic!(
                    "no line starting with '{prefix}' within {timeout:?}; transcript:\n{}",
                    self.transcript.join("\n")
                ),
            }
        }
    }

    /// Reads until `prefix` with the default timeout and returns that line.
    pub fn expect(&mut self, prefix: &str) -> String {
        self.read_until(prefix, TIMEOUT)
            .pop()
            .expect("read_until returns the matching line")
    }

    /// Sends `isready` and waits for its `readyok` (after those of every `isready` sent
    /// before, so that all earlier output has been read); returns the lines before it.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = Vec::new();
        while self.unanswered_isready > 0 {
            lines.extend(self.read_until("readyok", TIMEOUT));
            lines.pop();
        }
        lines
    }

    /// Lines that arrive within `wait` (for checking that nothing more comes).
    pub fn drain(&mut self, wait: Duration) -> Vec<String> {
        let mut lines = Vec::new();
        while let Some(line) = self.read_line(wait) {
            lines.push(line);
        }
        lines
    }

    /// Waits for the process to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            thread::sleep(Duration::from_millis(5));
        }
        None
    }

    /// The FEN the engine reports for its current position (`d`).
    pub fn fen(&mut self) -> String {
        // Lines still unread (an earlier `d`'s board) must not be taken for this answer.
        self.sync();
        self.send("d");
        let line = self.expect("Fen: ");
        line.trim_start_matches("Fen: ").to_string()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move of a `bestmove` line (`None` for `(none)`).
pub fn bestmove_of(line: &str) -> Option<String> {
    let mut tokens = line.split_whitespace();
    assert_eq!(
        tokens.next(),
        Some("bestmove"),
        "not a bestmove line: {line}"
    );
    match tokens.next() {
        Some("(none)") | None => None,
        Some(mv) => Some(mv.to_string()),
    }
}

/// The value after `key` in an `info` line.
pub fn info_field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    tokens
        .iter()
        .position(|&t| t == key)
        .and_then(|i| tokens.get(i + 1).copied())
}

/// The `score ...` of an info line as ("cp"|"mate", value).
pub fn info_score(line: &str) -> Option<(String, i32)> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let i = tokens.iter().position(|&t| t == "score")?;
    let kind = tokens.get(i + 1)?.to_string();
    let value = tokens.get(i + 2)?.parse().ok()?;
    Some((kind, value))
}

/// Runs `cutoff ARGS` to the end, which must succeed, and returns its stdout.
pub fn run_ok(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_cutoff"))
        .args(args)
        .output()
        .expect("the cutoff binary runs");
    assert!(output.status.success(), "{args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}
