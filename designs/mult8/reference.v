// Reference for mult8: shift-and-add array written out so synthesis sees the structure.
module mult8 (
    input  [7:0]  a,
    input  [7:0]  b,
    output [15:0] p
);
    wire [15:0] pp0 = b[0] ? {8'd0, a}       : 16'd0;
    wire [15:0] pp1 = b[1] ? {7'd0, a, 1'b0} : 16'd0;
    wire [15:0] pp2 = b[2] ? {6'd0, a, 2'b0} : 16'd0;
    wire [15:0] pp3 = b[3] ? {5'd0, a, 3'b0} : 16'd0;
    wire [15:0] pp4 = b[4] ? {4'd0, a, 4'b0} : 16'd0;
    wire [15:0] pp5 = b[5] ? {3'd0, a, 5'b0} : 16'd0;
    wire [15:0] pp6 = b[6] ? {2'd0, a, 6'b0} : 16'd0;
    wire [15:0] pp7 = b[7] ? {1'd0, a, 7'b0} : 16'd0;
    assign p = ((pp0 + pp1) + (pp2 + pp3)) + ((pp4 + pp5) + (pp6 + pp7));
endmodule
