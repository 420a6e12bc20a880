// kind: share
// change: the opcode selects the operands first (pc or rs1, imm or rs2) and only then adds or subtracts: two 16-bit arithmetic units after a 2-way operand mux instead of four after a 4-way result mux; it measures better than one adder with an inverted operand and a carry-in (one_adder.v), because the add/sub choice stays off the carry chain's inputs.
module shared_alu (
    input      [15:0] pc,
    input      [15:0] rs1,
    input      [15:0] rs2,
    input      [15:0] imm,
    input      [1:0]  op,
    output     [15:0] y
);
    wire [15:0] a = (op == 2'd0) ? pc : rs1;
    wire [15:0] b = op[1] ? rs2 : imm;
    assign y = (op == 2'd3) ? a - b : a + b;
endmodule
