//! A tiny HTTP/1.1 server on 127.0.0.1 that counts the connections it
//! accepts and records each request head, and a resolver that maps names
//! to chosen addresses and counts its lookups.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use oy_tools::tools::Resolve;

/// What the server does with one request.
pub enum Reply {
    /// Answers with these raw bytes (status line, headers, body).
    Raw(Vec<u8>),
    /// Reads the request and never answers (until the server stops).
    Hang,
}

/// A response with `status`, extra header lines and `body`.
pub fn response(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    )
    .into_bytes();
    for (name, value) in headers {
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    Reply::Raw(out)
}

/// An HTML page.
pub fn html(body: &str) -> Reply {
    response(
        "200 OK",
        &[("Content-Type", "text/html; charset=utf-8")],
        body.as_bytes(),
    )
}

type Handler = dyn Fn(&str) -> Reply + Send + Sync;

pub struct Server {
    pub addr: SocketAddr,
    accepted: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Serves on 127.0.0.1 with `handler` deciding each reply from the
    /// request head.
    pub fn start(handler: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let thread = {
            let (accepted, requests, stop) = (accepted.clone(), requests.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            accepted.fetch_add(1, Ordering::SeqCst);
                            let (handler, requests, stop) =
                                (handler.clone(), requests.clone(), stop.clone());
                            std::thread::spawn(move || {
                                let _ = serve(stream, &*handler, &requests, &stop);
                            });
                        }
                        Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        Err(_) => break,
                    }
                }
            })
        };
        Self {
            addr,
            accepted,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    /// Serves `reply` to every request.
    pub fn always(reply: impl Fn() -> Reply + Send + Sync + 'static) -> Self {
        Self::start(move |_| reply())
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// The request heads received so far.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    mut stream: TcpStream,
    handler: &Handler,
    requests: &Mutex<Vec<String>>,
    stop: &AtomicBool,
) -> io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut head = Vec::new();
    let mut buf = [0_u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    requests.lock().unwrap().push(head.clone());
    match handler(&head) {
        Reply::Raw(bytes) => stream.write_all(&bytes)?,
        Reply::Hang => {
            let until = Instant::now() + Duration::from_secs(10);
            while !stop.load(Ordering::SeqCst) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    Ok(())
}

/// Maps names to addresses; every other name fails. Counts lookups.
#[derive(Default)]
pub struct MapResolver {
    names: HashMap<String, Vec<IpAddr>>,
    pub lookups: AtomicUsize,
}

impl MapResolver {
    pub fn new(entries: &[(&str, &[&str])]) -> Arc<Self> {
        let names = entries
            .iter()
            .map(|(name, addrs)| {
                let addrs = addrs.iter().map(|a| a.parse().unwrap()).collect();
                ((*name).to_owned(), addrs)
            })
            .collect();
        Arc::new(Self {
            names,
            lookups: AtomicUsize::new(0),
        })
    }

    pub fn lookups(&self) -> usize {
        self.lookups.load(Ordering::SeqCst)
    }
}

impl Resolve for MapResolver {
    fn resolve(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        self.names
            .get(host)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such test name"))
    }
}
