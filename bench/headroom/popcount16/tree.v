// kind: arith
// change: a balanced tree of 1-, 2-, 3- and 4-bit adders instead of sixteen conditional increments of a 5-bit running count; each `if (x[i]) count = count + 1` is a mux over an incrementer, so Yosys cannot merge the chain into one multi-operand sum and ABC keeps a 16-deep carry chain.
module popcount16 (
    input  [15:0] x,
    output [4:0]  count
);
    wire [1:0] s1 [0:7];
    wire [2:0] s2 [0:3];
    wire [3:0] s3 [0:1];
    genvar i;
    generate
        for (i = 0; i < 8; i = i + 1) begin : l1
            assign s1[i] = x[2*i] + x[2*i+1];
        end
        for (i = 0; i < 4; i = i + 1) begin : l2
            assign s2[i] = s1[2*i] + s1[2*i+1];
        end
        for (i = 0; i < 2; i = i + 1) begin : l3
            assign s3[i] = s2[2*i] + s2[2*i+1];
        end
    endgenerate
    assign count = s3[0] + s3[1];
endmodule
