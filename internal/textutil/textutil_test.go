package textutil

import (
	"strings"
	"testing"
)

func TestStripMarkdown(t *testing.T) {
	tests := []struct{ in, want string }{
		{"# Política de trocas\n## Entregas\n### Prazos", "Política de trocas\nEntregas\nPrazos"},
		{"Use **sempre** o _EPI_ e `bico leque`.", "Use sempre o EPI e bico leque."},
		{"- item um\n* item dois\n1. passo", "item um\nitem dois\npasso"},
		{"Veja [a bula](https://x.example/bula.pdf).", "Veja a bula."},
		{"| a | b |\n|---|---|\n| 1 | 2 |", "| a | b |\n| 1 | 2 |"},
		{"> citação", "citação"},
		{"2,4-D e 10-10-10 ficam", "2,4-D e 10-10-10 ficam"},
		{"produto_base_x e 2 * 3 * 4", "produto_base_x e 2 * 3 * 4"},
		{"**Prazo**: 2 dias", "Prazo: 2 dias"},
		{"-5 °C à noite", "-5 °C à noite"},
	}
	for _, tt := range tests {
		if got := StripMarkdown(tt.in); got != tt.want {
			t.Errorf("StripMarkdown(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownStripTables(t *testing.T) {
	in := "## Estratégia **recomendada**\n\n- Use [pré-emergentes](https://x.example) e `cletodim`.\n\n| Espécie | Resistência |\n|---|---|\n| Buva | glifosato |"
	got := StripMarkdown(in)
	for _, bad := range []string{"#", "**", "](", "`", "|---"} {
		if strings.Contains(got, bad) {
			t.Errorf("StripMarkdown left %q in %q", bad, got)
		}
	}
	if !strings.Contains(got, "Estratégia recomendada") || !strings.Contains(got, "Use pré-emergentes e cletodim.") {
		t.Errorf("StripMarkdown = %q", got)
	}
}
