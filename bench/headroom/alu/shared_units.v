// kind: share
// change: ADD/ADDU/SUB/SUBU/SLT/SLTU (and flag) share one 33-bit adder-subtractor (SLT/SLTU are its bit 32), and the six shifts share one 33-bit right shifter (left shifts through bit reversal, the V forms by zeroing a[31:5]), since synthesis builds a separate adder, subtractor, two comparators and six shifters for the mutually exclusive case arms.
module alu(
    input [31:0] a,
    input [31:0] b,
    input [5:0] aluc,
    output [31:0] r,
    output zero,
    output carry,
    output negative,
    output overflow,
    output flag
    );

    // arithmetic: one 33-bit add/sub; signed forms (aluc[0] = 0) sign-extend, subtract when aluc[1]
    wire sgn = ~aluc[0];
    wire sub = aluc[1];
    wire [32:0] xa = {sgn & a[31], a};
    wire [32:0] xb = {sgn & b[31], b} ^ {33{sub}};
    wire [32:0] sum = xa + xb + {32'd0, sub};
    wire lt = sum[32];                 // SLT: sign of sext(a) - sext(b); SLTU: borrow of a - b

    // shifts: aluc = 000 v d s (v: amount a[4:0]; d: right; s: arithmetic)
    wire left = ~aluc[1];
    wire arith = aluc[0];
    wire [31:0] amt = aluc[2] ? {27'd0, a[4:0]} : a;
    wire [32:0] op = {arith & b[31], b};                       // 33-bit operand of the reference
    wire [32:0] op_rev;
    genvar i;
    generate for (i = 0; i < 33; i = i + 1) begin : rv
        assign op_rev[i] = op[32 - i];
    end endgenerate
    wire [32:0] src = left ? op_rev : op;
    wire fill = arith & b[31];
    wire big = |amt[31:6];
    wire [96:0] wide = {{64{fill}}, src} >> amt[5:0];
    wire [32:0] shr = big ? {33{fill}} : wide[32:0];
    wire [32:0] shr_rev;
    generate for (i = 0; i < 33; i = i + 1) begin : rv2
        assign shr_rev[i] = shr[32 - i];
    end endgenerate
    wire [32:0] shres = left ? shr_rev : shr;

    reg [32:0] res;
    always @(*) begin
        casez (aluc)
            6'b1000??: res = sum;
            6'b100100: res = {1'b0, a & b};
            6'b100101: res = {1'b0, a | b};
            6'b100110: res = {1'b0, a ^ b};
            6'b100111: res = {1'b1, ~(a | b)};
            6'b10101?: res = {32'd0, lt};
            6'b000000, 6'b000010, 6'b000011,
            6'b000100, 6'b000110, 6'b000111: res = shres;
            6'b001111: res = {1'b0, a[15:0], 16'h0000};
            default:   res = 32'bz;
        endcase
    end

    assign r = res[31:0];
    assign zero = (res == 33'b0);
    assign flag = lt;
endmodule
