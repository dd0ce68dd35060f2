package main

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter table defaults and bounds.
const (
	// defaultRateClients is the default capacity of the limiter's client
	// table (-rate-clients): about 2.5 MB when full.
	defaultRateClients = 10000
	// limiterSweepEvery is how often the table is swept of clients whose
	// bucket has refilled while there is room; limiterFullSweepEvery how
	// often at most when it is full (the sweep walks the whole table).
	limiterSweepEvery     = time.Minute
	limiterFullSweepEvery = time.Second
	// ipv6LimitBits is the IPv6 prefix one client is limited on: a single
	// host usually holds a whole /64, so per-address buckets would let it
	// rotate addresses past the limit.
	ipv6LimitBits = 64
)

// ipLimiter is a token bucket per client (golang.org/x/time/rate), keyed
// by the client's IPv4 address or IPv6 /64. It is safe for concurrent use.
//
// Its table is bounded: a client whose bucket has refilled to the burst is
// indistinguishable from one never seen, so sweeps drop such clients
// (every limiterSweepEvery, and every limiterFullSweepEvery while the
// table is full). When the table still holds maxClients clients, new
// clients share one overflow bucket of the same rate and burst until a
// sweep makes room: a flood from many addresses is limited as one client
// instead of evicting (and so resetting) the buckets of clients already
// being limited.
type ipLimiter struct {
	limit      rate.Limit
	burst      int
	maxClients int
	now        func() time.Time

	mu       sync.Mutex
	clients  map[netip.Addr]*rate.Limiter
	overflow *rate.Limiter
	swept    time.Time
	// overflowed counts the requests that went to the overflow bucket.
	overflowed int64
}

// newIPLimiter returns a limiter of perSecond requests per second with
// burst per client, holding at most maxClients clients (< 1: the default).
func newIPLimiter(perSecond float64, burst, maxClients int) *ipLimiter {
	if maxClients < 1 {
		maxClients = defaultRateClients
	}
	lim := rate.Limit(perSecond)
	return &ipLimiter{limit: lim, burst: burst, maxClients: maxClients, now: time.Now,
		clients: map[netip.Addr]*rate.Limiter{}, overflow: rate.NewLimiter(lim, burst)}
}

// allow takes a token for the client at addr; when none is left it
// reports how long until one is.
func (l *ipLimiter) allow(addr netip.Addr) (ok bool, retryAfter time.Duration) {
	key := limitKey(addr)
	now := l.now()
	l.mu.Lock()
	c := l.clients[key]
	if c == nil {
		full := len(l.clients) >= l.maxClients
		if full && now.Sub(l.swept) >= limiterFullSweepEvery || now.Sub(l.swept) >= limiterSweepEvery {
			l.sweep(now)
			full = len(l.clients) >= l.maxClients
		}
		if full {
			c = l.overflow
			l.overflowed++
		} else {
			c = rate.NewLimiter(l.limit, l.burst)
			l.clients[key] = c
		}
	}
	l.mu.Unlock()

	r := c.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// sweep drops the clients whose bucket is full again. l.mu is held.
func (l *ipLimiter) sweep(now time.Time) {
	for k, c := range l.clients {
		if c.TokensAt(now) >= float64(l.burst) {
			delete(l.clients, k)
		}
	}
	l.swept = now
}

// limiterStats is the state of the limiter's table.
type limiterStats struct {
	Clients    int   `json:"clients"`
	MaxClients int   `json:"max_clients"`
	Overflowed int64 `json:"overflowed"`
}

func (l *ipLimiter) stats() limiterStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return limiterStats{Clients: len(l.clients), MaxClients: l.maxClients, Overflowed: l.overflowed}
}

// limitKey is the address a client is limited on: an IPv4 address as it
// is, an IPv6 address's /64.
func limitKey(a netip.Addr) netip.Addr {
	a = a.Unmap()
	if a.Is6() {
		if p, err := a.WithZone("").Prefix(ipv6LimitBits); err == nil {
			return p.Addr()
		}
	}
	return a
}

// clientResolver finds a request's client address. Without trustProxy it
// is the connection's peer. With it, X-Forwarded-For is read from the
// right, the end the proxies append to (the left end is whatever the
// client sent):
//
//   - with proxies (-trusted-proxies), the peer must be one of them for
//     the header to count at all, and the client is the right-most address
//     that is not one of them; an entry that is not an IP address stops
//     the walk: the client is then the last trusted hop that handed it
//     over;
//   - otherwise the client is the hops-th address from the right (-trusted-hops,
//     default 1: the address the proxy in front of the server appended).
//     A request whose header has fewer addresses than that (or an entry
//     among them that is not one) did not come through the configured
//     proxies — it reached the port directly — so none of its entries is
//     to be trusted: the client is the peer.
//
// X-Real-IP is ignored (a proxy that does not set it passes the client's
// own on). Hops mode cannot tell a client that reaches the port directly
// and writes hops addresses itself from one behind the proxies; the
// server warns at start-up when -trust-proxy is used without
// -trusted-proxies. It is immutable and safe for concurrent use.
type clientResolver struct {
	trustProxy bool
	hops       int
	proxies    []netip.Prefix
}

func newClientResolver(cfg config) clientResolver {
	return clientResolver{trustProxy: cfg.TrustProxy, hops: max(cfg.TrustedHops, 1), proxies: cfg.TrustedProxies}
}

// clientAddr is r's client address; the zero Addr when the peer's address
// cannot be parsed (such clients share one bucket).
func (c clientResolver) clientAddr(r *http.Request) netip.Addr {
	peer := parseAddr(r.RemoteAddr)
	if !c.trustProxy || (len(c.proxies) > 0 && !c.trusted(peer)) {
		return peer
	}
	hops := forwardedFor(r)
	if len(c.proxies) == 0 {
		// Hops mode: the hops-th address from the right, when the header
		// has that many addresses; otherwise the peer.
		if len(hops) < c.hops {
			return peer
		}
		for _, h := range hops[len(hops)-c.hops:] {
			if !parseAddr(h).IsValid() {
				return peer
			}
		}
		return parseAddr(hops[len(hops)-c.hops])
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a := parseAddr(hops[i])
		if !a.IsValid() {
			return client // garbage: the hop that handed it over
		}
		client = a
		if !c.trusted(a) {
			return a
		}
	}
	// Every one a trusted proxy: the left-most address, which a trusted
	// proxy received from its peer.
	return client
}

// trusted reports whether a is a trusted proxy.
func (c clientResolver) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range c.proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientKey is the key r's client is rate limited on (limitKey of
// clientAddr), as text: what binds a confirmation to its client.
func (c clientResolver) clientKey(r *http.Request) string {
	return limitKey(c.clientAddr(r)).String()
}

// clientIP is r's client address as text, for logs.
func (c clientResolver) clientIP(r *http.Request) string {
	if a := c.clientAddr(r); a.IsValid() {
		return a.String()
	}
	return r.RemoteAddr
}

// forwardedFor lists the X-Forwarded-For entries of every such header, in
// order, spaces trimmed.
func forwardedFor(r *http.Request) []string {
	var out []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		for e := range strings.SplitSeq(v, ",") {
			out = append(out, strings.TrimSpace(e))
		}
	}
	return out
}

// parseAddr parses "ip", "ip:port" or "[ipv6]:port"; zones are dropped
// and IPv4-mapped IPv6 addresses unmapped. It returns the zero Addr for
// anything else.
func parseAddr(s string) netip.Addr {
	s = strings.TrimSpace(s)
	a, err := netip.ParseAddr(s)
	if err != nil {
		host, _, serr := net.SplitHostPort(s)
		if serr != nil {
			return netip.Addr{}
		}
		if a, err = netip.ParseAddr(host); err != nil {
			return netip.Addr{}
		}
	}
	return a.WithZone("").Unmap()
}

// parseProxies parses a comma-separated list of CIDR prefixes or single
// addresses (-trusted-proxies, TRUSTED_PROXIES).
func parseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, errBadProxy
		}
		a = a.WithZone("").Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
