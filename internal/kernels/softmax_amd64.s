//go:build amd64

#include "textflag.h"

// exp32's constants (exp32.go), each in all 8 lanes: log2(e), 0.5,
// C1, C2, P0..P5, 1, Lo, Hi and the exponent bias 127 (an integer).
DATA exp32Consts<>+0(SB)/4, $0x3fb8aa3b
DATA exp32Consts<>+4(SB)/4, $0x3fb8aa3b
DATA exp32Consts<>+8(SB)/4, $0x3fb8aa3b
DATA exp32Consts<>+12(SB)/4, $0x3fb8aa3b
DATA exp32Consts<>+16(SB)/4, $0x3fb8aa3b
DATA exp32Consts<>+20(SB)/4, $0x3fb8aa3b
DATA exp32Consts<>+24(SB)/4, $0x3fb8aa3b
DATA exp32Consts<>+28(SB)/4, $0x3fb8aa3b
DATA exp32Consts<>+32(SB)/4, $0x3f000000
DATA exp32Consts<>+36(SB)/4, $0x3f000000
DATA exp32Consts<>+40(SB)/4, $0x3f000000
DATA exp32Consts<>+44(SB)/4, $0x3f000000
DATA exp32Consts<>+48(SB)/4, $0x3f000000
DATA exp32Consts<>+52(SB)/4, $0x3f000000
DATA exp32Consts<>+56(SB)/4, $0x3f000000
DATA exp32Consts<>+60(SB)/4, $0x3f000000
DATA exp32Consts<>+64(SB)/4, $0x3f318000
DATA exp32Consts<>+68(SB)/4, $0x3f318000
DATA exp32Consts<>+72(SB)/4, $0x3f318000
DATA exp32Consts<>+76(SB)/4, $0x3f318000
DATA exp32Consts<>+80(SB)/4, $0x3f318000
DATA exp32Consts<>+84(SB)/4, $0x3f318000
DATA exp32Consts<>+88(SB)/4, $0x3f318000
DATA exp32Consts<>+92(SB)/4, $0x3f318000
DATA exp32Consts<>+96(SB)/4, $0xb95e8083
DATA exp32Consts<>+100(SB)/4, $0xb95e8083
DATA exp32Consts<>+104(SB)/4, $0xb95e8083
DATA exp32Consts<>+108(SB)/4, $0xb95e8083
DATA exp32Consts<>+112(SB)/4, $0xb95e8083
DATA exp32Consts<>+116(SB)/4, $0xb95e8083
DATA exp32Consts<>+120(SB)/4, $0xb95e8083
DATA exp32Consts<>+124(SB)/4, $0xb95e8083
DATA exp32Consts<>+128(SB)/4, $0x39506967
DATA exp32Consts<>+132(SB)/4, $0x39506967
DATA exp32Consts<>+136(SB)/4, $0x39506967
DATA exp32Consts<>+140(SB)/4, $0x39506967
DATA exp32Consts<>+144(SB)/4, $0x39506967
DATA exp32Consts<>+148(SB)/4, $0x39506967
DATA exp32Consts<>+152(SB)/4, $0x39506967
DATA exp32Consts<>+156(SB)/4, $0x39506967
DATA exp32Consts<>+160(SB)/4, $0x3ab743ce
DATA exp32Consts<>+164(SB)/4, $0x3ab743ce
DATA exp32Consts<>+168(SB)/4, $0x3ab743ce
DATA exp32Consts<>+172(SB)/4, $0x3ab743ce
DATA exp32Consts<>+176(SB)/4, $0x3ab743ce
DATA exp32Consts<>+180(SB)/4, $0x3ab743ce
DATA exp32Consts<>+184(SB)/4, $0x3ab743ce
DATA exp32Consts<>+188(SB)/4, $0x3ab743ce
DATA exp32Consts<>+192(SB)/4, $0x3c088908
DATA exp32Consts<>+196(SB)/4, $0x3c088908
DATA exp32Consts<>+200(SB)/4, $0x3c088908
DATA exp32Consts<>+204(SB)/4, $0x3c088908
DATA exp32Consts<>+208(SB)/4, $0x3c088908
DATA exp32Consts<>+212(SB)/4, $0x3c088908
DATA exp32Consts<>+216(SB)/4, $0x3c088908
DATA exp32Consts<>+220(SB)/4, $0x3c088908
DATA exp32Consts<>+224(SB)/4, $0x3d2aa9c1
DATA exp32Consts<>+228(SB)/4, $0x3d2aa9c1
DATA exp32Consts<>+232(SB)/4, $0x3d2aa9c1
DATA exp32Consts<>+236(SB)/4, $0x3d2aa9c1
DATA exp32Consts<>+240(SB)/4, $0x3d2aa9c1
DATA exp32Consts<>+244(SB)/4, $0x3d2aa9c1
DATA exp32Consts<>+248(SB)/4, $0x3d2aa9c1
DATA exp32Consts<>+252(SB)/4, $0x3d2aa9c1
DATA exp32Consts<>+256(SB)/4, $0x3e2aaaaa
DATA exp32Consts<>+260(SB)/4, $0x3e2aaaaa
DATA exp32Consts<>+264(SB)/4, $0x3e2aaaaa
DATA exp32Consts<>+268(SB)/4, $0x3e2aaaaa
DATA exp32Consts<>+272(SB)/4, $0x3e2aaaaa
DATA exp32Consts<>+276(SB)/4, $0x3e2aaaaa
DATA exp32Consts<>+280(SB)/4, $0x3e2aaaaa
DATA exp32Consts<>+284(SB)/4, $0x3e2aaaaa
DATA exp32Consts<>+288(SB)/4, $0x3f000000
DATA exp32Consts<>+292(SB)/4, $0x3f000000
DATA exp32Consts<>+296(SB)/4, $0x3f000000
DATA exp32Consts<>+300(SB)/4, $0x3f000000
DATA exp32Consts<>+304(SB)/4, $0x3f000000
DATA exp32Consts<>+308(SB)/4, $0x3f000000
DATA exp32Consts<>+312(SB)/4, $0x3f000000
DATA exp32Consts<>+316(SB)/4, $0x3f000000
DATA exp32Consts<>+320(SB)/4, $0x3f800000
DATA exp32Consts<>+324(SB)/4, $0x3f800000
DATA exp32Consts<>+328(SB)/4, $0x3f800000
DATA exp32Consts<>+332(SB)/4, $0x3f800000
DATA exp32Consts<>+336(SB)/4, $0x3f800000
DATA exp32Consts<>+340(SB)/4, $0x3f800000
DATA exp32Consts<>+344(SB)/4, $0x3f800000
DATA exp32Consts<>+348(SB)/4, $0x3f800000
DATA exp32Consts<>+352(SB)/4, $0xc2aeac50
DATA exp32Consts<>+356(SB)/4, $0xc2aeac50
DATA exp32Consts<>+360(SB)/4, $0xc2aeac50
DATA exp32Consts<>+364(SB)/4, $0xc2aeac50
DATA exp32Consts<>+368(SB)/4, $0xc2aeac50
DATA exp32Consts<>+372(SB)/4, $0xc2aeac50
DATA exp32Consts<>+376(SB)/4, $0xc2aeac50
DATA exp32Consts<>+380(SB)/4, $0xc2aeac50
DATA exp32Consts<>+384(SB)/4, $0x42b0c0a5
DATA exp32Consts<>+388(SB)/4, $0x42b0c0a5
DATA exp32Consts<>+392(SB)/4, $0x42b0c0a5
DATA exp32Consts<>+396(SB)/4, $0x42b0c0a5
DATA exp32Consts<>+400(SB)/4, $0x42b0c0a5
DATA exp32Consts<>+404(SB)/4, $0x42b0c0a5
DATA exp32Consts<>+408(SB)/4, $0x42b0c0a5
DATA exp32Consts<>+412(SB)/4, $0x42b0c0a5
DATA exp32Consts<>+416(SB)/4, $0x0000007f
DATA exp32Consts<>+420(SB)/4, $0x0000007f
DATA exp32Consts<>+424(SB)/4, $0x0000007f
DATA exp32Consts<>+428(SB)/4, $0x0000007f
DATA exp32Consts<>+432(SB)/4, $0x0000007f
DATA exp32Consts<>+436(SB)/4, $0x0000007f
DATA exp32Consts<>+440(SB)/4, $0x0000007f
DATA exp32Consts<>+444(SB)/4, $0x0000007f
GLOBL exp32Consts<>(SB), RODATA|NOPTR, $448

// func maxAVX(x *float32, blocks int, lanes *[8]float32)
TEXT ·maxAVX(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ lanes+16(FP), DI
	VMOVUPS (SI), Y0
	ADDQ $32, SI
	DECQ CX
	JZ maxdone

maxloop:
	VMAXPS (SI), Y0, Y0
	ADDQ $32, SI
	DECQ CX
	JNZ maxloop

maxdone:
	VMOVUPS Y0, (DI)
	VZEROUPPER
	RET

// func expSumAVX(x, y *float32, blocks int, shift float32, sums *[8]float64)
//
// Each lane computes exp32(x - shift) with exp32's operations in its
// order (no fused multiply-adds), so the values equal exp32's.
TEXT ·expSumAVX(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ blocks+16(FP), CX
	VBROADCASTSS shift+24(FP), Y15
	MOVQ sums+32(FP), R8
	VMOVUPD (R8), Y12
	VMOVUPD 32(R8), Y13

exploop:
	VMOVUPS (SI), Y0
	VSUBPS Y15, Y0, Y0
	VCMPPS $3, Y0, Y0, Y9
	VCMPPS $1, exp32Consts<>+352(SB), Y0, Y10
	VMINPS exp32Consts<>+384(SB), Y0, Y0
	VMAXPS exp32Consts<>+352(SB), Y0, Y0
	VMULPS exp32Consts<>+0(SB), Y0, Y1
	VADDPS exp32Consts<>+32(SB), Y1, Y1
	VROUNDPS $1, Y1, Y1
	VMULPS exp32Consts<>+64(SB), Y1, Y2
	VSUBPS Y2, Y0, Y0
	VMULPS exp32Consts<>+96(SB), Y1, Y2
	VSUBPS Y2, Y0, Y0
	VMULPS Y0, Y0, Y3
	VMULPS exp32Consts<>+128(SB), Y0, Y4
	VADDPS exp32Consts<>+160(SB), Y4, Y4
	VMULPS Y0, Y4, Y4
	VADDPS exp32Consts<>+192(SB), Y4, Y4
	VMULPS Y0, Y4, Y4
	VADDPS exp32Consts<>+224(SB), Y4, Y4
	VMULPS Y0, Y4, Y4
	VADDPS exp32Consts<>+256(SB), Y4, Y4
	VMULPS Y0, Y4, Y4
	VADDPS exp32Consts<>+288(SB), Y4, Y4
	VMULPS Y3, Y4, Y4
	VADDPS Y0, Y4, Y4
	VADDPS exp32Consts<>+320(SB), Y4, Y4
	VCVTPS2DQ Y1, Y5
	VPADDD exp32Consts<>+416(SB), Y5, Y5
	VPSLLD $23, Y5, Y5
	VMULPS Y5, Y4, Y4
	VANDNPS Y4, Y10, Y4
	VORPS Y9, Y4, Y4
	VMOVUPS Y4, (DI)
	VCVTPS2PD X4, Y6
	VEXTRACTF128 $1, Y4, X7
	VCVTPS2PD X7, Y7
	VADDPD Y6, Y12, Y12
	VADDPD Y7, Y13, Y13
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ exploop
	VMOVUPD Y12, (R8)
	VMOVUPD Y13, 32(R8)
	VZEROUPPER
	RET

// func scaleAVX(y *float32, blocks int, s float32)
TEXT ·scaleAVX(SB), NOSPLIT, $0-20
	MOVQ y+0(FP), DI
	MOVQ blocks+8(FP), CX
	VBROADCASTSS s+16(FP), Y15

scaleloop:
	VMULPS (DI), Y15, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	DECQ CX
	JNZ scaleloop
	VZEROUPPER
	RET

// func dotLanesAVX(y, grad *float32, blocks int, sums *[8]float64)
TEXT ·dotLanesAVX(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), SI
	MOVQ grad+8(FP), DI
	MOVQ blocks+16(FP), CX
	MOVQ sums+24(FP), R8
	VMOVUPD (R8), Y12
	VMOVUPD 32(R8), Y13

dotloop:
	VMOVUPS (SI), Y0
	VMULPS (DI), Y0, Y0
	VCVTPS2PD X0, Y1
	VEXTRACTF128 $1, Y0, X2
	VCVTPS2PD X2, Y2
	VADDPD Y1, Y12, Y12
	VADDPD Y2, Y13, Y13
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ dotloop
	VMOVUPD Y12, (R8)
	VMOVUPD Y13, 32(R8)
	VZEROUPPER
	RET

// func softmaxGradAVX(y, grad, dx *float32, blocks int, sum float64)
TEXT ·softmaxGradAVX(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), SI
	MOVQ grad+8(FP), DI
	MOVQ dx+16(FP), DX
	MOVQ blocks+24(FP), CX
	VBROADCASTSD sum+32(FP), Y15

gradloop:
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VCVTPS2PD (DI), Y2
	VCVTPS2PD 16(DI), Y3
	VSUBPD Y15, Y2, Y2
	VSUBPD Y15, Y3, Y3
	VMULPD Y2, Y0, Y0
	VMULPD Y3, Y1, Y1
	VCVTPD2PSY Y0, X0
	VCVTPD2PSY Y1, X1
	VINSERTF128 $1, X1, Y0, Y0
	VMOVUPS Y0, (DX)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, DX
	DECQ CX
	JNZ gradloop
	VZEROUPPER
	RET
