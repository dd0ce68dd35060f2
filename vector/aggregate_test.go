package vector

import (
	"testing"
)

func TestParseAggregateMode(t *testing.T) {
	for _, m := range []AggregateMode{AggregateMax, AggregateSum, AggregateTopKMean} {
		got, err := ParseAggregateMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseAggregateMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseAggregateMode("avg"); err == nil {
		t.Error("ParseAggregateMode(avg) succeeded")
	}
	if s := AggregateMode(9).String(); s != "AggregateMode(9)" {
		t.Errorf("String = %q", s)
	}
}
