// Command marquee-ferretdb runs FerretDB 1.24 embedded, with its SQLite backend, as the local
// MongoDB-wire server for Marquee development and integration tests.
//
// Why a launcher of our own: `go install .../cmd/ferretdb` builds a binary that panics at start,
// because the module zip lacks build/version/version.txt (FerretDB issues #2982, #4889). The
// embeddable package `ferretdb` skips that check and sends no telemetry.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "marquee-ferretdb: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	defaultPort := 27117
	if v := os.Getenv("MONGO_PORT"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("MONGO_PORT=%q is not a TCP port (1-65535)", v)
		}
		defaultPort = p
	}

	host := flag.String("host", "127.0.0.1", "address to listen on (keep it on loopback)")
	port := flag.Int("port", defaultPort, "TCP port to listen on (default from MONGO_PORT, else 27117)")
	dataDir := flag.String("data-dir", "", "directory for the SQLite databases (required; created if missing)")
	logLevel := flag.String("log-level", "warn", "FerretDB log level: debug, info, warn, error")
	synchronous := flag.String("synchronous", "normal",
		"SQLite synchronous mode: normal (no fsync per commit; a crash of the machine may lose the last commits) or full")
	gcPercent := flag.Int("gc-percent", 400,
		"Go's GOGC for the server (ignored when the GOGC variable is set): how far the heap grows past the live data before a collection; higher spends memory to save CPU")
	pprofAddr := flag.String("pprof", "",
		"serve Go's pprof profiles on this loopback address (e.g. 127.0.0.1:6060), to see where the server spends its time; off when empty")
	flag.Parse()

	if *pprofAddr != "" {
		pprofHost, _, err := net.SplitHostPort(*pprofAddr)
		if err != nil || !net.ParseIP(pprofHost).IsLoopback() {
			return fmt.Errorf("-pprof %q: must be a loopback host:port", *pprofAddr)
		}
		go func() {
			// The default mux carries net/http/pprof's handlers (imported for that side effect).
			if err := http.ListenAndServe(*pprofAddr, nil); err != nil {
				fmt.Fprintf(os.Stderr, "marquee-ferretdb: pprof listener: %v\n", err)
			}
		}()
	}

	// FerretDB allocates a decoded copy of every document it reads (SQLite JSON to BSON and back),
	// so at Go's default (100) the collector took about an eighth of its CPU under load. At 400 it
	// runs a quarter as often, for about 100 MB resident instead of 60 (deploy/local/README.md).
	if os.Getenv("GOGC") == "" {
		if *gcPercent < 50 || *gcPercent > 10_000 {
			return fmt.Errorf("-gc-percent %d: 50 to 10000", *gcPercent)
		}
		debug.SetGCPercent(*gcPercent)
	}

	if *dataDir == "" {
		return errors.New("-data-dir is required")
	}
	if *port < 1 || *port > 65535 {
		return fmt.Errorf("-port %d is not a TCP port (1-65535)", *port)
	}
	if *synchronous != "normal" && *synchronous != "full" {
		return fmt.Errorf("-synchronous %q: normal or full", *synchronous)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("-log-level %q: %w", *logLevel, err)
	}

	dir, err := filepath.Abs(*dataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating data dir: %w", err)
	}

	addr := net.JoinHostPort(*host, strconv.Itoa(*port))
	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: addr},
		Handler:  "sqlite",
		// The SQLite backend takes a directory URL; it must be absolute and end with a slash,
		// one SQLite file per Mongo database inside it. FerretDB runs SQLite in WAL mode; with
		// synchronous=normal a commit is not fsynced (the WAL is, at checkpoints), which takes the
		// disk's flush latency out of every write. A process crash loses nothing; only a crash of
		// the machine can lose the last commits, acceptable for a development and test server.
		SQLiteURL: "file:" + dir + "/?_pragma=synchronous(" + *synchronous + ")",
		Logger:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
	})
	if err != nil {
		return fmt.Errorf("configuring FerretDB: %w", err)
	}

	// SIGTERM/SIGINT cancel the context; Run then closes the listener, waits for open
	// connections to finish and closes the SQLite databases so nothing is left half-written.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		// After the first signal, restore default handling: a second signal kills at once,
		// the way out if a client connection keeps the graceful stop waiting.
		<-ctx.Done()
		stop()
	}()

	fmt.Fprintf(os.Stderr, "marquee-ferretdb: listening on %s, data in %s (pid %d)\n", addr, dir, os.Getpid())
	start := time.Now()
	// Run blocks until ctx is cancelled; listen errors (port taken) were already reported by New.
	if err := f.Run(ctx); err != nil {
		return fmt.Errorf("FerretDB stopped after %s: %w", time.Since(start).Round(time.Millisecond), err)
	}
	fmt.Fprintln(os.Stderr, "marquee-ferretdb: stopped cleanly")
	return nil
}
