// Command sharechaos-toxiproxy is toxiproxy's server (v2.12.0) with the
// suite's own toxics registered before it starts. It takes the upstream
// server's flags, so the docker backend runs it and the upstream toxiproxy
// image the same way.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/collectors"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

type arguments struct {
	host           string
	port           string
	config         string
	printVersion   bool
	proxyMetrics   bool
	runtimeMetrics bool
}

func parseArguments() arguments {
	var a arguments
	flag.StringVar(&a.host, "host", "localhost", "host for toxiproxy's API to listen on")
	flag.StringVar(&a.port, "port", "8474", "port for toxiproxy's API to listen on")
	flag.StringVar(&a.config, "config", "", "JSON file with proxies to create on startup")
	flag.BoolVar(&a.runtimeMetrics, "runtime-metrics", false, "enable runtime prometheus metrics")
	flag.BoolVar(&a.proxyMetrics, "proxy-metrics", false, "enable toxiproxy's prometheus metrics")
	flag.BoolVar(&a.printVersion, "version", false, "print the version")
	// Accepted for compatibility with the upstream server; toxics draw from
	// their own sources since toxiproxy 2.5.
	flag.Int64("seed", time.Now().UnixNano(), "ignored: kept for compatibility")
	flag.Parse()
	return a
}

func main() {
	if err := run(parseArguments()); err != nil {
		fmt.Fprintf(os.Stderr, "sharechaos-toxiproxy: %v\n", err)
		os.Exit(1)
	}
}

func run(args arguments) error {
	if args.printVersion {
		fmt.Printf("toxiproxy-server version %s (sharechaos)\n", toxiproxy.Version)
		return nil
	}
	// Before NewServer: the API resolves a toxic's type in the registry when a
	// client creates it, so every type must be there before the first request.
	registerToxics()

	logger := newLogger()
	logger.Info().Str("version", toxiproxy.Version).Strs("toxics", registeredToxics()).
		Msg("Starting Toxiproxy")

	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), logger)
	if args.proxyMetrics {
		server.Metrics.ProxyMetrics = collectors.NewProxyMetricCollectors()
	}
	if args.runtimeMetrics {
		server.Metrics.RuntimeMetrics = collectors.NewRuntimeMetricCollectors()
	}
	if args.config != "" {
		server.PopulateConfig(args.config)
	}

	listenErr := make(chan error, 1)
	go func() { listenErr <- server.Listen(net.JoinHostPort(args.host, args.port)) }()

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	select {
	case err := <-listenErr:
		return fmt.Errorf("serve api: %w", err)
	case <-signals:
	}
	logger.Info().Msg("Shutdown started")
	if err := server.Shutdown(); err != nil {
		return fmt.Errorf("shut down server: %w", err)
	}
	return nil
}

// newLogger logs JSON lines to stdout like the upstream server, at LOG_LEVEL
// when set.
func newLogger() zerolog.Logger {
	zerolog.TimestampFunc = func() time.Time { return time.Now().UTC() }
	zerolog.CallerMarshalFunc = func(_ uintptr, file string, line int) string {
		for i := len(file) - 1; i > 0; i-- {
			if file[i] == '/' {
				file = file[i+1:]
				break
			}
		}
		return file + ":" + strconv.Itoa(line)
	}
	logger := zerolog.New(os.Stdout).With().Caller().Timestamp().Logger()
	if val, ok := os.LookupEnv("LOG_LEVEL"); ok {
		lvl, err := zerolog.ParseLevel(val)
		if err != nil {
			logger.Err(err).Msgf("unknown LOG_LEVEL value: %q", val)
			return logger
		}
		logger = logger.Level(lvl)
	}
	return logger
}
