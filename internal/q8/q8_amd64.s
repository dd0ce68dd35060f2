//go:build amd64 && !purego

#include "textflag.h"

// HSUMD8_STORE adds the eight int32 lanes of Y0 and stores the sum at
// (DI), using X1 as scratch.
#define HSUMD8_STORE \
	VEXTRACTI128 $1, Y0, X1; \
	VPADDD       X1, X0, X0; \
	VPSHUFD      $0x4E, X0, X1; \
	VPADDD       X1, X0, X0; \
	VPSHUFD      $0xB1, X0, X1; \
	VPADDD       X1, X0, X0; \
	VMOVD        X0, (DI)

// func dotRowsQ8VNNI(out []int32, matrix, query []int8, n64 int)
//
// n64 > 0.
//
//	DI next out element   CX rows left   SI row   DX query
//	R8 row stride         R9 n64         BX byte offset in the row
//	Z31 0x80 in every byte; Z0, Z1 accumulators (16 int32 lanes each)
//	Z30 -128 times the query's codes summed per lane: the kernel's offset
//	    of 128 on every row code, removed by starting each row from it
TEXT ·dotRowsQ8VNNI(SB), NOSPLIT, $0-80
	MOVQ out_base+0(FP), DI
	MOVQ out_len+8(FP), CX
	MOVQ matrix_base+24(FP), SI
	MOVQ query_base+48(FP), DX
	MOVQ query_len+56(FP), R8
	MOVQ n64+72(FP), R9
	MOVL $0x80808080, AX
	VPBROADCASTD AX, Z31
	TESTQ CX, CX
	JZ   done

	// Z30 = -128 * (sum of the query codes, per lane).
	MOVL $0x01010101, AX
	VPBROADCASTD AX, Z29
	VPXORD Z0, Z0, Z0
	XORQ BX, BX

qsum:
	VPDPBUSD (DX)(BX*1), Z29, Z0
	ADDQ $64, BX
	CMPQ BX, R9
	JB   qsum
	VPSLLD $7, Z0, Z0
	VPXORD Z30, Z30, Z30
	VPSUBD Z0, Z30, Z30

row:
	VMOVDQA64 Z30, Z0
	VPXORD Z1, Z1, Z1
	XORQ BX, BX

pair:
	LEAQ 128(BX), AX
	CMPQ AX, R9
	JA   single
	VPXORD   (SI)(BX*1), Z31, Z2
	VPXORD   64(SI)(BX*1), Z31, Z3
	VPDPBUSD (DX)(BX*1), Z2, Z0
	VPDPBUSD 64(DX)(BX*1), Z3, Z1
	MOVQ AX, BX
	JMP  pair

single:
	CMPQ BX, R9
	JAE  reduce
	VPXORD   (SI)(BX*1), Z31, Z2
	VPDPBUSD (DX)(BX*1), Z2, Z0

reduce:
	VPADDD        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y1
	VPADDD        Y1, Y0, Y0
	HSUMD8_STORE
	ADDQ $4, DI
	ADDQ R8, SI
	DECQ CX
	JNZ  row

done:
	VZEROUPPER
	RET

// func dotRowsQ8AVX2(out []int32, matrix, query []int8, n32 int)
//
// n32 > 0, a multiple of 32. VPMADDUBSW multiplies unsigned bytes by
// signed ones into saturating 16-bit pair sums; with |x| (VPABSB) as the
// unsigned side and the query byte given x's sign (VPSIGNB) as the signed
// one, each pair sum is at most 2·127·127 < 32767, so nothing saturates
// and the products are exact. VPMADDWD by ones widens to 32 bits.
//
//	DI next out element   CX rows left   SI row   DX query
//	R8 row stride         R9 n32         BX byte offset in the row
//	Y15 16-bit ones; Y0, Y1 accumulators (8 int32 lanes each)
TEXT ·dotRowsQ8AVX2(SB), NOSPLIT, $0-80
	MOVQ out_base+0(FP), DI
	MOVQ out_len+8(FP), CX
	MOVQ matrix_base+24(FP), SI
	MOVQ query_base+48(FP), DX
	MOVQ query_len+56(FP), R8
	MOVQ n32+72(FP), R9
	MOVL $0x00010001, AX
	MOVQ AX, X15
	VPBROADCASTD X15, Y15
	TESTQ CX, CX
	JZ   done2

row2:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	XORQ BX, BX

pair2:
	LEAQ 64(BX), AX
	CMPQ AX, R9
	JA   single2
	VMOVDQU    (SI)(BX*1), Y2
	VMOVDQU    32(SI)(BX*1), Y3
	VMOVDQU    (DX)(BX*1), Y4
	VMOVDQU    32(DX)(BX*1), Y5
	VPSIGNB    Y2, Y4, Y4
	VPSIGNB    Y3, Y5, Y5
	VPABSB     Y2, Y2
	VPABSB     Y3, Y3
	VPMADDUBSW Y4, Y2, Y4
	VPMADDUBSW Y5, Y3, Y5
	VPMADDWD   Y15, Y4, Y4
	VPMADDWD   Y15, Y5, Y5
	VPADDD     Y4, Y0, Y0
	VPADDD     Y5, Y1, Y1
	MOVQ AX, BX
	JMP  pair2

single2:
	CMPQ BX, R9
	JAE  reduce2
	VMOVDQU    (SI)(BX*1), Y2
	VMOVDQU    (DX)(BX*1), Y4
	VPSIGNB    Y2, Y4, Y4
	VPABSB     Y2, Y2
	VPMADDUBSW Y4, Y2, Y4
	VPMADDWD   Y15, Y4, Y4
	VPADDD     Y4, Y0, Y0

reduce2:
	VPADDD Y1, Y0, Y0
	HSUMD8_STORE
	ADDQ $4, DI
	ADDQ R8, SI
	DECQ CX
	JNZ  row2

done2:
	VZEROUPPER
	RET
