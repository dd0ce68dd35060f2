package lexical

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func cpuPerOp(n int, f func(i int)) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := range n / 10 {
		f(i)
	}
	t0 := threadCPU()
	for i := range n {
		f(i)
	}
	return (threadCPU() - t0) / time.Duration(n)
}

func TestTmpCPU(t *testing.T) {
	s := NewScorer(ScorerOptions{})
	q := s.Prepare(benchQueries[0])
	norm := benchRecords(200, true)
	raw := benchRecords(200, false)
	desc := raw[0].Description
	fmt.Println("ScoreOnly/normalized", cpuPerOp(200000, func(i int) { q.ScoreOnly(&norm[i%200]) }))
	fmt.Println("ScoreOnly/raw", cpuPerOp(50000, func(i int) { q.ScoreOnly(&raw[i%200]) }))
	fmt.Println("Score/normalized", cpuPerOp(100000, func(i int) { q.Score(&norm[i%200]) }))
	fmt.Println("Prepare", cpuPerOp(20000, func(i int) { s.Prepare(benchQueries[i%4]) }))
	fmt.Println("Tokens", cpuPerOp(50000, func(i int) { Tokens(benchQueries[i%4]) }))
	fmt.Println("Normalize/raw", len(desc), cpuPerOp(50000, func(i int) { Normalize(desc) }))
	nd := Normalize(desc)
	fmt.Println("Normalize/ascii", cpuPerOp(500000, func(i int) { Normalize(nd) }))
	ws := []string{"fungicidas", "pulgoes", "sistemicas", "pastagens", "canaviais", "lagartas", "soja", "aplicacoes"}
	fmt.Println("Stem", cpuPerOp(1000000, func(i int) { Stem(ws[i%8]) }))
}
