//! An engine process driven over UCI, UGI, UAI or the Gomocup protocol: start, handshake,
//! options, and reading lines with deadlines so that an engine that hangs, crashes or floods
//! never hangs the runner.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use super::clock::SearchLimits;
use super::session::{GomocupGame, Session};
use cutoff::protocol::dialect::Dialect;

/// Lines of an engine's output kept for forfeit reports.
const TAIL_LINES: usize = 8;
/// Time an engine gets to exit after `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(300);

/// The protocol the runner speaks to an engine (`proto=` on the command line).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EngineProtocol {
    /// A dialect of the UCI family: UCI, UGI or UAI.
    Text(Dialect),
    /// The Gomocup (piskvork) protocol of gomoku engines (`gomocup`).
    Gomocup,
}

impl EngineProtocol {
    /// The protocol named `name` (`uci`, `ugi`, `uai` or `gomocup`, any case).
    pub fn from_name(name: &str) -> Option<EngineProtocol> {
        if name.eq_ignore_ascii_case("gomocup") {
            return Some(EngineProtocol::Gomocup);
        }
        Dialect::from_name(name).map(EngineProtocol::Text)
    }

    /// Its name, as `proto=` takes it.
    pub fn name(self) -> &'static str {
        match self {
            EngineProtocol::Text(dialect) => dialect.handshake(),
            EngineProtocol::Gomocup => "gomocup",
        }
    }

    /// The command that asks the engine to exit.
    fn quit(self) -> &'static str {
        match self {
            EngineProtocol::Text(_) => "quit",
            EngineProtocol::Gomocup => "END",
        }
    }
}

impl serde::Serialize for EngineProtocol {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// How to start and set up one engine.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EngineConfig {
    /// Name in results and PGN.
    pub name: String,
    /// Program to run.
    pub cmd: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory (the runner's when `None`).
    pub dir: Option<PathBuf>,
    /// The protocol it speaks (`proto=` on the command line).
    pub proto: EngineProtocol,
    /// `setoption` pairs sent after the handshake, in order (Gomocup: `INFO NAME VALUE`
    /// lines sent before each game).
    pub options: Vec<(String, String)>,
    /// Search limits for every move.
    pub limits: SearchLimits,
    /// How long past its clock this engine may answer before it loses on time (`None`:
    /// the match's `-timemargin`).
    pub time_margin: Option<Duration>,
}

/// Why talking to an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFailure {
    /// The deadline passed without the expected line.
    Timeout,
    /// The engine closed its output (exited or crashed).
    Disconnected,
    /// Writing to the engine failed (it has exited).
    WriteFailed,
    /// The match is being stopped (Ctrl-C).
    Interrupted,
}

/// A running engine process.
pub struct EngineProcess {
    /// The configuration it was started from.
    pub config: EngineConfig,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    tail: VecDeque<String>,
    /// The game as a Gomocup engine is told it, and what its board holds; `None` for
    /// engines of the other protocols and until the match runner sets it.
    pub(super) gomocup: Option<Session>,
}

impl EngineConfig {
    /// Why the engine's program cannot be run, if that can be seen without starting it: a
    /// path (with a `/`) that is not a file, relative to the runner's directory or to `dir`,
    /// or a bare name found in no directory of `PATH`.
    pub fn program_problem(&self) -> Option<String> {
        let cmd = std::path::Path::new(&self.cmd);
        let found = if self.cmd.contains('/') {
            cmd.is_file() || self.dir.as_ref().is_some_and(|dir| dir.join(cmd).is_file())
        } else {
            std::env::var_os("PATH")
                .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(cmd).is_file()))
        };
        (!found).then(|| format!("cannot start '{}': no such program", self.cmd))
    }
}

impl EngineProcess {
    /// Makes this engine a player over the Gomocup protocol of `game`; called before
    /// [`EngineProcess::init`].
    pub fn use_gomocup(&mut self, game: GomocupGame) {
        self.gomocup = Some(Session::new(game));
    }

    /// Starts the engine; its stderr is discarded.
    pub fn spawn(config: &EngineConfig) -> Result<EngineProcess, String> {
        let mut command = Command::new(&config.cmd);
        command
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &config.dir {
            command.current_dir(dir);
        }
        // Its own process group: a Ctrl-C at the terminal reaches the runner, which stops
        // the match between games, and not the engines, whose deaths would end the games in
        // progress as crashes and count them.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start '{}': {e}", config.cmd))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Ok(EngineProcess {
            config: config.clone(),
            child,
            stdin,
            lines: rx,
            tail: VecDeque::new(),
            gomocup: None,
        })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineFailure> {
        log::debug!("{} < {line}", self.config.name);
        let stdin = self.stdin.as_mut().ok_or(EngineFailure::WriteFailed)?;
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|_| EngineFailure::WriteFailed)
    }

    /// The next line, waiting until `deadline`; `interrupted` is polled every 50 ms.
    pub fn read_line(
        &mut self,
        deadline: Instant,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<String, EngineFailure> {
        loop {
            if interrupted() {
                return Err(EngineFailure::Interrupted);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(EngineFailure::Timeout);
            }
            let wait = (deadline - now).min(Duration::from_millis(50));
            match self.lines.recv_timeout(wait) {
                Ok(line) => {
                    log::debug!("{} > {line}", self.config.name);
                    if self.tail.len() == TAIL_LINES {
                        self.tail.pop_front();
                    }
                    self.tail.push_back(line.clone());
                    return Ok(line);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(EngineFailure::Disconnected),
            }
        }
    }

    /// Reads lines until one whose first token is `token`; returns that line.
    pub fn wait_for(
        &mut self,
        token: &str,
        deadline: Instant,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<String, EngineFailure> {
        loop {
            let line = self.read_line(deadline, interrupted)?;
            if line.split_whitespace().next() == Some(token) {
                return Ok(line);
            }
        }
    }

    /// `isready`, then waits for `readyok`.
    pub fn ready(
        &mut self,
        timeout: Duration,
        interrupted: &dyn Fn() -> bool,
    ) -> Result<(), EngineFailure> {
        self.send("isready")?;
        self.wait_for("readyok", Instant::now() + timeout, interrupted)
            .map(|_| ())
    }

    /// The last lines the engine printed, oldest first.
    pub fn tail(&self) -> Vec<String> {
        self.tail.iter().cloned().collect()
    }

    /// Whether the process has exited.
    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Sends `quit` (Gomocup: `END`), waits briefly, then kills the process.
    pub fn quit(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        let _ = self.send(self.config.proto.quit());
        self.stdin = None;
        let deadline = Instant::now() + QUIT_GRACE;
        while Instant::now() < deadline {
            if self.has_exited() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if !self.has_exited() {
            self.shutdown();
        }
    }
}
