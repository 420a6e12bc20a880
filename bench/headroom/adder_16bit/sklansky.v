// kind: arith
// change: the 16 one-bit sum-of-products adder instances become a Sklansky parallel-prefix carry network over generate/propagate signals, a different starting structure for ABC than the ripple of full adders it cannot restructure globally.
module adder_16bit (
    input wire [15:0] a,
    input wire [15:0] b,
    input wire Cin,
    output wire [15:0] y,
    output wire Co
);
    pfx u (.a(a), .b(b), .ci(Cin), .s(y), .co(Co));
endmodule
module pfx(input [15:0] a, input [15:0] b, input ci, output [15:0] s, output co);
  wire [15:0] p0 = a ^ b;
  wire [15:0] g0 = a & b;
  wire G1 = g0[0] | (p0[0] & ci);
  wire G2 = g0[2] | (p0[2] & g0[1]);
  wire P2 = p0[2] & p0[1];
  wire G3 = g0[4] | (p0[4] & g0[3]);
  wire P3 = p0[4] & p0[3];
  wire G4 = g0[6] | (p0[6] & g0[5]);
  wire P4 = p0[6] & p0[5];
  wire G5 = g0[8] | (p0[8] & g0[7]);
  wire P5 = p0[8] & p0[7];
  wire G6 = g0[10] | (p0[10] & g0[9]);
  wire P6 = p0[10] & p0[9];
  wire G7 = g0[12] | (p0[12] & g0[11]);
  wire P7 = p0[12] & p0[11];
  wire G8 = g0[14] | (p0[14] & g0[13]);
  wire P8 = p0[14] & p0[13];
  wire G9 = g0[1] | (p0[1] & G1);
  wire G10 = G2 | (P2 & G1);
  wire G11 = g0[5] | (p0[5] & G3);
  wire P11 = p0[5] & P3;
  wire G12 = G4 | (P4 & G3);
  wire P12 = P4 & P3;
  wire G13 = g0[9] | (p0[9] & G5);
  wire P13 = p0[9] & P5;
  wire G14 = G6 | (P6 & G5);
  wire P14 = P6 & P5;
  wire G15 = g0[13] | (p0[13] & G7);
  wire P15 = p0[13] & P7;
  wire G16 = G8 | (P8 & G7);
  wire P16 = P8 & P7;
  wire G17 = g0[3] | (p0[3] & G10);
  wire G18 = G3 | (P3 & G10);
  wire G19 = G11 | (P11 & G10);
  wire G20 = G12 | (P12 & G10);
  wire G21 = g0[11] | (p0[11] & G14);
  wire P21 = p0[11] & P14;
  wire G22 = G7 | (P7 & G14);
  wire P22 = P7 & P14;
  wire G23 = G15 | (P15 & G14);
  wire P23 = P15 & P14;
  wire G24 = G16 | (P16 & G14);
  wire P24 = P16 & P14;
  wire G25 = g0[7] | (p0[7] & G20);
  wire G26 = G5 | (P5 & G20);
  wire G27 = G13 | (P13 & G20);
  wire G28 = G14 | (P14 & G20);
  wire G29 = G21 | (P21 & G20);
  wire G30 = G22 | (P22 & G20);
  wire G31 = G23 | (P23 & G20);
  wire G32 = G24 | (P24 & G20);
  wire G33 = g0[15] | (p0[15] & G32);
  assign s[0] = p0[0] ^ ci;
  assign s[1] = p0[1] ^ G1;
  assign s[2] = p0[2] ^ G9;
  assign s[3] = p0[3] ^ G10;
  assign s[4] = p0[4] ^ G17;
  assign s[5] = p0[5] ^ G18;
  assign s[6] = p0[6] ^ G19;
  assign s[7] = p0[7] ^ G20;
  assign s[8] = p0[8] ^ G25;
  assign s[9] = p0[9] ^ G26;
  assign s[10] = p0[10] ^ G27;
  assign s[11] = p0[11] ^ G28;
  assign s[12] = p0[12] ^ G29;
  assign s[13] = p0[13] ^ G30;
  assign s[14] = p0[14] ^ G31;
  assign s[15] = p0[15] ^ G32;
  assign co = G33;
endmodule
