package clientcfg

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// ParseError names the file, line and key of a setting that cannot be used.
type ParseError struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
}

// Load reads a client properties file (--client-config). Every key it does
// not support is an error naming it: a setting silently ignored would run
// the suite against a cluster with other settings than the user believes.
func Load(path string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("read client config: %w", err)
	}
	defer f.Close()
	var c Config
	var keystoreType, truststoreType string
	line, start := 0, 0
	var pending strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line++
		text := strings.TrimLeft(sc.Text(), " \t\f")
		if pending.Len() == 0 {
			start = line
			if text == "" || text[0] == '#' || text[0] == '!' {
				continue
			}
		}
		// A line ending in an odd number of backslashes continues.
		if n := len(text) - len(strings.TrimRight(text, `\`)); n%2 == 1 {
			pending.WriteString(text[:len(text)-1])
			continue
		}
		pending.WriteString(text)
		key, val := splitProperty(pending.String())
		pending.Reset()
		perr := func(msg string, args ...any) error {
			return &ParseError{File: path, Line: start, Key: key, Msg: fmt.Sprintf(msg, args...)}
		}
		switch key {
		case "security.protocol":
			c.Protocol = strings.ToUpper(val)
		case "sasl.mechanism":
			c.Mechanism = strings.ToUpper(val)
		case "sasl.jaas.config":
			u, p, err := parseJAAS(val)
			if err != nil {
				return Config{}, perr("%v", err)
			}
			c.Username, c.Password = u, p
		case "ssl.truststore.location":
			c.CAFile = val
		case "ssl.truststore.type":
			truststoreType = strings.ToUpper(val)
			if truststoreType != "PEM" {
				return Config{}, perr("%q: only PEM truststores (franz-go takes Go's crypto/tls, no JKS or PKCS12)", val)
			}
		case "ssl.keystore.type":
			keystoreType = strings.ToUpper(val)
			if keystoreType != "PEM" {
				return Config{}, perr("%q: only PEM keystores (franz-go takes Go's crypto/tls, no JKS or PKCS12)", val)
			}
		case "ssl.keystore.certificate.chain":
			c.CertFile = val
		case "ssl.keystore.key":
			c.KeyFile = val
		case "ssl.endpoint.identification.algorithm":
			switch strings.ToLower(val) {
			case "":
				c.SkipHostnameCheck = true
			case "https":
			default:
				return Config{}, perr("%q: want https or empty", val)
			}
		default:
			return Config{}, perr("not supported (supported: security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location, ssl.truststore.type=PEM, ssl.keystore.type=PEM, ssl.keystore.certificate.chain, ssl.keystore.key, ssl.endpoint.identification.algorithm)")
		}
	}
	if err := sc.Err(); err != nil {
		return Config{}, fmt.Errorf("read client config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	// Fail now on unreadable PEM files, not in every worker later.
	if _, err := c.Opts(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// splitProperty splits "key=value", "key: value" or "key value" (Java
// properties), trimming the whitespace around the separator.
func splitProperty(s string) (key, val string) {
	i := strings.IndexAny(s, "=: \t")
	if i < 0 {
		return strings.TrimSpace(s), ""
	}
	key = s[:i]
	rest := strings.TrimLeft(s[i:], " \t")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t")
	}
	return key, strings.TrimSpace(rest)
}

var jaasOption = regexp.MustCompile(`(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"`)

// parseJAAS takes username and password from a PlainLoginModule or
// ScramLoginModule line.
func parseJAAS(v string) (user, pass string, err error) {
	if !strings.Contains(v, "PlainLoginModule") && !strings.Contains(v, "ScramLoginModule") {
		return "", "", fmt.Errorf("want a PlainLoginModule or ScramLoginModule line")
	}
	for _, m := range jaasOption.FindAllStringSubmatch(v, -1) {
		val := strings.ReplaceAll(strings.ReplaceAll(m[2], `\"`, `"`), `\\`, `\`)
		switch m[1] {
		case "username":
			user = val
		case "password":
			pass = val
		}
	}
	if user == "" {
		return "", "", fmt.Errorf(`no username="..." in it`)
	}
	return user, pass, nil
}
