// Reference for shared_alu: address / arithmetic unit with a 2-bit opcode.
module shared_alu (
    input      [15:0] pc,
    input      [15:0] rs1,
    input      [15:0] rs2,
    input      [15:0] imm,
    input      [1:0]  op,
    output reg [15:0] y
);
    wire [15:0] target  = pc + imm;      // branch / jump target
    wire [15:0] addr    = rs1 + imm;     // load / store address
    wire [15:0] sum     = rs1 + rs2;     // ADD
    wire [15:0] diff    = rs1 - rs2;     // SUB

    always @* begin
        case (op)
            2'd0:    y = target;
            2'd1:    y = addr;
            2'd2:    y = sum;
            default: y = diff;
        endcase
    end
endmodule
