// Reference for mux_alu: a 16-bit ALU with a 3-bit opcode, written the plain way (one operator per case arm).
module mux_alu (
    input      [15:0] a,
    input      [15:0] b,
    input      [15:0] c,
    input      [2:0]  op,
    output reg [15:0] y
);
    always @* begin
        case (op)
            3'd0:    y = a + b;                  // ADD
            3'd1:    y = a - b;                  // SUB
            3'd2:    y = a + c;                  // ADD with the offset
            3'd3:    y = c - b;                  // reverse subtract from the offset
            3'd4:    y = a << b[3:0];            // SLL
            3'd5:    y = a >> b[3:0];            // SRL
            3'd6:    y = $signed(a) >>> b[3:0];  // SRA
            default: y = c >> a[3:0];            // SRL of the offset
        endcase
    end
endmodule
