//go:build amd64 && !purego

#include "textflag.h"

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
	VEXTRACTI128  $1, Y0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0x4E, X0, X1
	VPADDD        X1, X0, X0
	VPSHUFD       $0xB1, X0, X1
	VPADDD        X1, X0, X0
	VMOVD         X0, (DI)
	ADDQ $4, DI
	ADDQ R8, SI
	DECQ CX
	JNZ  row

done:
	VZEROUPPER
	RET
