// kind: share
// change: add, subtract and both comparisons share one 9-bit adder; measured 0.92x on Nangate45 (area -16% but the shared adder sits on every path): no headroom found
module alu8 (
    input      [7:0] a,
    input      [7:0] b,
    input      [2:0] op,
    output reg [7:0] y,
    output reg       carry,
    output           zero
);
    wire       sub = (op != 3'b000);
    wire [8:0] s = {1'b0, a} + {1'b0, sub ? ~b : b} + {8'd0, sub};
    wire       lt_u = ~s[8];
    wire       lt_s = (a[7] ^ b[7]) ? a[7] : s[7];
    always @* begin
        carry = 1'b0;
        case (op)
            3'b000: {carry, y} = s;
            3'b001: begin y = s[7:0]; carry = lt_u; end
            3'b010: y = a & b;
            3'b011: y = a | b;
            3'b100: y = a ^ b;
            3'b101: y = a << b[2:0];
            3'b110: y = a >> b[2:0];
            default: y = {7'd0, lt_s};
        endcase
    end
    assign zero = (y == 8'd0);
endmodule
