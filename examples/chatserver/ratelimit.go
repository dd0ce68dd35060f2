package main

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiterIdle is how long an idle client's bucket is kept.
const limiterIdle = 10 * time.Minute

// ipLimiter is a token bucket per client IP (golang.org/x/time/rate). Idle
// buckets are dropped during later calls, so memory stays bounded by the
// clients of the last limiterIdle. It is safe for concurrent use.
type ipLimiter struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu      sync.Mutex
	clients map[string]*clientBucket
	swept   time.Time
}

type clientBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newIPLimiter(perSecond float64, burst int) *ipLimiter {
	return &ipLimiter{limit: rate.Limit(perSecond), burst: burst, now: time.Now, clients: map[string]*clientBucket{}}
}

// allow takes a token for ip; when none is left it reports how long until
// one is.
func (l *ipLimiter) allow(ip string) (ok bool, retryAfter time.Duration) {
	now := l.now()
	l.mu.Lock()
	if now.Sub(l.swept) > limiterIdle {
		for k, c := range l.clients {
			if now.Sub(c.seen) > limiterIdle {
				delete(l.clients, k)
			}
		}
		l.swept = now
	}
	c := l.clients[ip]
	if c == nil {
		c = &clientBucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.clients[ip] = c
	}
	c.seen = now
	l.mu.Unlock()

	r := c.lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// clientIP is the request's client address: the connection's peer, or with
// trustProxy the left-most X-Forwarded-For entry (or X-Real-IP).
func clientIP(r *http.Request, trustProxy bool) string {
	if trustProxy {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			first, _, _ := strings.Cut(xff, ",")
			if ip := net.ParseIP(strings.TrimSpace(first)); ip != nil {
				return ip.String()
			}
		}
		if ip := net.ParseIP(strings.TrimSpace(r.Header.Get("X-Real-IP"))); ip != nil {
			return ip.String()
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
