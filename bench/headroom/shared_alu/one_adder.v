// kind: share
// change: the four mutually exclusive additions share one adder whose operands are selected by the opcode (SUB as rs1 + ~rs2 + 1), instead of four adders and a result mux; Yosys' share pass does not merge adders and ABC cannot move the mux across them.
module shared_alu (
    input  [15:0] pc,
    input  [15:0] rs1,
    input  [15:0] rs2,
    input  [15:0] imm,
    input  [1:0]  op,
    output [15:0] y
);
    wire [15:0] x = (op == 2'd0) ? pc : rs1;
    wire [15:0] z = op[1] ? (op[0] ? ~rs2 : rs2) : imm;
    assign y = x + z + (op == 2'd3);
endmodule
