package rag

import "testing"

func TestAskingClause(t *testing.T) {
	for _, tc := range []struct{ msg, clause, rest string }{
		{"devolvi o pedido semana passada, o estorno cai quando?", "o estorno cai quando?", "devolvi o pedido semana passada,"},
		{"tem algum produto pro psilideo? o greening ta pegando", "tem algum produto pro psilideo?", "o greening ta pegando"},
		{"Somos uma fazenda de 2.000 ha. Como funciona a cotação?", "Como funciona a cotação?", "Somos uma fazenda de 2.000 ha."},
		{"posso misturar 2,4-D com glifosato no tanque?", "", ""},
		{"chegou vazando, a caixa molhada!!! e agora??", "e agora?", "chegou vazando, a caixa molhada!!! ?"},
		{"chegou vazando, a caixa molhada!!! agora??", "", ""},
		{"qual a dose do glifosato por hectare?", "", ""},
		{"", "", ""},
	} {
		clause, rest := askingClause(tc.msg)
		if clause != tc.clause || rest != tc.rest {
			t.Errorf("askingClause(%q) = %q, %q; want %q, %q", tc.msg, clause, rest, tc.clause, tc.rest)
		}
	}
}
