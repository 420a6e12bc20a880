// kind: share
// change: the four additions/subtractions share one 16-bit adder with a conditionally inverted operand and a carry-in, and the four shifts one right shifter (the left shift through bit reversal, SRA by its fill bit), the operands selected by the opcode first, instead of an adder or shifter per case arm and a result mux after them.
module mux_alu (
    input  [15:0] a,
    input  [15:0] b,
    input  [15:0] c,
    input  [2:0]  op,
    output [15:0] y
);
    // arithmetic: op 0 a+b, 1 a-b, 2 a+c, 3 c-b
    wire        sub = op[0];
    wire [15:0] x = (op[1:0] == 2'b11) ? c : a;
    wire [15:0] z = (op[1:0] == 2'b10) ? c : b;
    wire [15:0] sum = x + (z ^ {16{sub}}) + {15'd0, sub};

    // shifts: op 4 a<<b, 5 a>>b, 6 a>>>b, 7 c>>a
    wire        left = (op[1:0] == 2'b00);
    wire [15:0] v = (op[1:0] == 2'b11) ? c : a;
    wire [3:0]  amt = (op[1:0] == 2'b11) ? a[3:0] : b[3:0];
    wire        fill = (op[1:0] == 2'b10) & a[15];
    wire [15:0] v_rev, sh_rev;
    genvar i;
    generate for (i = 0; i < 16; i = i + 1) begin : rv
        assign v_rev[i] = v[15 - i];
    end endgenerate
    wire [15:0] src = left ? v_rev : v;
    wire signed [16:0] wide = $signed({fill, src}) >>> amt;
    wire [15:0] sh = wide[15:0];
    generate for (i = 0; i < 16; i = i + 1) begin : rv2
        assign sh_rev[i] = sh[15 - i];
    end endgenerate

    assign y = op[2] ? (left ? sh_rev : sh) : sum;
endmodule
