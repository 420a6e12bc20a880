// kind: other
// change: no gain: the 24 mux2X1 instances become one logical right shift in >> ctrl, but synthesis flattens the instances and maps both to about the same 3-level mux network (0.97 on Nangate45).
module barrel_shifter (in, ctrl, out);
  input  [7:0] in;
  input [2:0] ctrl;
  output [7:0] out;
  assign out = in >> ctrl;
endmodule
