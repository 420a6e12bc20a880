// kind: arith
// change: no headroom found: the full-adder instances become an explicit generate/propagate carry chain; ABC reaches the identical netlist (ratio 1.0), as it did for prefix, carry-select and plain + forms.
module adder_8bit(input [7:0] a, b, input cin, output [7:0] sum, output cout);
    pfx u(.a(a), .b(b), .ci(cin), .s(sum), .co(cout));
endmodule
module pfx(input [7:0] a, input [7:0] b, input ci, output [7:0] s, output co);
  wire [7:0] p0 = a ^ b;
  wire [7:0] g0 = a & b;
  wire G1 = g0[0] | (p0[0] & ci);
  wire G2 = g0[1] | (p0[1] & G1);
  wire G3 = g0[2] | (p0[2] & G2);
  wire G4 = g0[3] | (p0[3] & G3);
  wire G5 = g0[4] | (p0[4] & G4);
  wire G6 = g0[5] | (p0[5] & G5);
  wire G7 = g0[6] | (p0[6] & G6);
  wire G8 = g0[7] | (p0[7] & G7);
  assign s[0] = p0[0] ^ ci;
  assign s[1] = p0[1] ^ G1;
  assign s[2] = p0[2] ^ G2;
  assign s[3] = p0[3] ^ G3;
  assign s[4] = p0[4] ^ G4;
  assign s[5] = p0[5] ^ G5;
  assign s[6] = p0[6] ^ G6;
  assign s[7] = p0[7] ^ G7;
  assign co = G8;
endmodule
