package browser

import (
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// lanProxy is the browser's only proxy. It lets the page be opened as
// http://LANAddr:PORT/, as a phone opens a Ferry link, while every byte
// stays on loopback: a request for LANAddr:PORT goes to 127.0.0.1:PORT
// with its Host header unchanged (so the receiver sees the address a
// phone would send), a CONNECT to LANAddr:PORT (Chromium tunnels
// WebSockets through a proxy that way) is spliced to 127.0.0.1:PORT, and
// anything else is refused with 403. Chromium reaches loopback itself,
// without the proxy.
type lanProxy struct {
	ln  net.Listener
	srv *http.Server

	mu      sync.Mutex
	refused []string              // host:port of every request refused
	tunnels map[net.Conn]net.Conn // open CONNECT tunnels, browser side to loopback side
	stall   *stall                // where tunnels stop forwarding, if anywhere
}

// A stall stops every tunnel's direction that has carried at bytes, as
// a Wi-Fi that stalls before it drops, until it is released. A test
// holds a transfer by it at a point it names in bytes, whatever the
// machine's speed: a hold by the receiver's progress events, which come
// at most every 250 ms, fell after the last byte once the page got
// fast enough.
type stall struct {
	at      int64
	trickle int64         // the bytes before at that go slowly (trickleRate)
	reached chan struct{} // closed when the first direction stops at at
	once    sync.Once
	release chan struct{}
}

// stallAt makes tunnels stop forwarding in a direction once it has
// carried n bytes, the trickle bytes before n slowly, until unstall;
// reached is closed at the first stop.
func (p *lanProxy) stallAt(n, trickle int64) <-chan struct{} {
	s := &stall{at: n, trickle: trickle, reached: make(chan struct{}), release: make(chan struct{})}
	p.unstall()
	p.mu.Lock()
	p.stall = s
	p.mu.Unlock()
	return s.reached
}

// unstall lets every stalled direction go on, and no other stop.
func (p *lanProxy) unstall() {
	p.mu.Lock()
	s := p.stall
	p.stall = nil
	p.mu.Unlock()
	if s != nil {
		close(s.release)
	}
}

// trickleGap is the pause before each piece (32 KiB at most) of a
// stall's trickle: about 3 MB/s, so that a page's view, which moves at
// its progress ticks of 250 ms, is seen moving before the stop. Bytes
// stopped at once can stop between two ticks, the view short of where
// they stopped, until the page's 30 s of silence end the transfer.
const trickleGap = 10 * time.Millisecond

// pipe copies src to dst as io.Copy does, but stops at the stall's
// point, if one is set, until it is released. It returns at src's end
// or error, or at dst's error.
func (p *lanProxy) pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	var carried int64
	for {
		p.mu.Lock()
		s := p.stall
		p.mu.Unlock()
		chunk := buf
		if s != nil {
			if carried >= s.at {
				s.once.Do(func() { close(s.reached) })
				<-s.release
				continue
			}
			chunk = buf[:min(int64(len(buf)), s.at-carried)]
			if carried >= s.at-s.trickle {
				time.Sleep(trickleGap) // a piece of at most len(buf)
			}
		}
		n, err := src.Read(chunk)
		if n > 0 {
			if _, werr := dst.Write(chunk[:n]); werr != nil {
				return
			}
			carried += int64(n)
		}
		if err != nil {
			return
		}
	}
}

// cut closes every open tunnel, as a Wi-Fi that drops cuts the page's
// WebSocket: both ends see the connection end.
func (p *lanProxy) cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.tunnels)
	for a, b := range p.tunnels {
		a.Close()
		b.Close()
	}
	p.tunnels = map[net.Conn]net.Conn{}
	return n
}

func (p *lanProxy) refuse(w http.ResponseWriter, hostport string) {
	p.mu.Lock()
	p.refused = append(p.refused, hostport)
	p.mu.Unlock()
	http.Error(w, "the test browser reaches only loopback", http.StatusForbidden)
}

func startProxy() (*lanProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &lanProxy{ln: ln}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.Out.URL.Scheme = "http"
		r.Out.URL.Host = "127.0.0.1:" + r.In.URL.Port()
		r.Out.Host = r.In.Host
	}, ErrorLog: log.New(io.Discard, "", 0)} // a refused or reset request is the test's to judge
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect {
			p.connect(w, r)
			return
		}
		u, err := url.Parse(r.RequestURI)
		if err != nil || u.Scheme != "http" || u.Hostname() != LANAddr || u.Port() == "" {
			p.refuse(w, r.Host)
			return
		}
		r.URL = u
		rp.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

func (p *lanProxy) addr() string { return p.ln.Addr().String() }

// connect splices a CONNECT tunnel to LANAddr:PORT onto 127.0.0.1:PORT.
func (p *lanProxy) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil || host != LANAddr {
		p.refuse(w, r.Host)
		return
	}
	dst, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", port), 5*time.Second)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		dst.Close()
		http.Error(w, "no hijacking", http.StatusInternalServerError)
		return
	}
	src, rw, err := hj.Hijack()
	if err != nil {
		dst.Close()
		return
	}
	io.WriteString(src, "HTTP/1.1 200 Connection established\r\n\r\n")
	p.mu.Lock()
	if p.tunnels == nil {
		p.tunnels = map[net.Conn]net.Conn{}
	}
	p.tunnels[src] = dst
	p.mu.Unlock()
	go func() {
		p.pipe(dst, rw) // what the browser sent, buffered reader first
		dst.(*net.TCPConn).CloseWrite()
	}()
	go func() {
		p.pipe(src, dst)
		src.Close()
		p.mu.Lock()
		delete(p.tunnels, src)
		p.mu.Unlock()
	}()
}

func (p *lanProxy) close() {
	p.unstall()
	p.srv.Close() // does not close hijacked tunnels: they end with the browser
}
