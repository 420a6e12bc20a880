// Reference for ripple_sum4: sum of four 16-bit operands from full-adder cells.
module ripple_sum4 (
    input  [15:0] a,
    input  [15:0] b,
    input  [15:0] c,
    input  [15:0] d,
    output [17:0] sum
);
    wire [15:0] s1, s2, s3;
    wire        c1, c2, c3;

    adder16 u_add1 (.x(a),  .y(b), .cin(1'b0), .s(s1), .cout(c1));
    adder16 u_add2 (.x(s1), .y(c), .cin(1'b0), .s(s2), .cout(c2));
    adder16 u_add3 (.x(s2), .y(d), .cin(1'b0), .s(s3), .cout(c3));
    // the three carries out weigh 2^16 each
    full_adder u_hi (.a(c1), .b(c2), .cin(c3), .sum(sum[16]), .cout(sum[17]));

    assign sum[15:0] = s3;
endmodule

module adder16 (
    input  [15:0] x,
    input  [15:0] y,
    input         cin,
    output [15:0] s,
    output        cout
);
    wire c8;
    adder8 u_lo (.x(x[7:0]),  .y(y[7:0]),  .cin(cin), .s(s[7:0]),  .cout(c8));
    adder8 u_hi (.x(x[15:8]), .y(y[15:8]), .cin(c8),  .s(s[15:8]), .cout(cout));
endmodule

module adder8 (
    input  [7:0] x,
    input  [7:0] y,
    input        cin,
    output [7:0] s,
    output       cout
);
    wire [8:0] c;
    assign c[0] = cin;
    full_adder fa0 (.a(x[0]), .b(y[0]), .cin(c[0]), .sum(s[0]), .cout(c[1]));
    full_adder fa1 (.a(x[1]), .b(y[1]), .cin(c[1]), .sum(s[1]), .cout(c[2]));
    full_adder fa2 (.a(x[2]), .b(y[2]), .cin(c[2]), .sum(s[2]), .cout(c[3]));
    full_adder fa3 (.a(x[3]), .b(y[3]), .cin(c[3]), .sum(s[3]), .cout(c[4]));
    full_adder fa4 (.a(x[4]), .b(y[4]), .cin(c[4]), .sum(s[4]), .cout(c[5]));
    full_adder fa5 (.a(x[5]), .b(y[5]), .cin(c[5]), .sum(s[5]), .cout(c[6]));
    full_adder fa6 (.a(x[6]), .b(y[6]), .cin(c[6]), .sum(s[6]), .cout(c[7]));
    full_adder fa7 (.a(x[7]), .b(y[7]), .cin(c[7]), .sum(s[7]), .cout(c[8]));
    assign cout = c[8];
endmodule

module full_adder (
    input  a,
    input  b,
    input  cin,
    output sum,
    output cout
);
    assign sum  = a ^ b ^ cin;
    assign cout = (a & b) | (a & cin) | (b & cin);
endmodule
