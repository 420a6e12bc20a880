// kind: width
// change: for B != 0 the partial remainder stays below B, so each of the 16 restoring steps needs a 9-bit compare/subtract instead of a 16-bit one (B == 0 handled by one final select); about 2x better PPA but the flow's SAT/ABC cannot prove the invariant in its time limit (cosim only), so it does not count.
module div_16bit(
    input wire [15:0] A,
    input wire [7:0] B,
    output wire [15:0] result,
    output wire [15:0] odd
    );
reg [7:0] r;
reg [15:0] q;
reg [8:0] t;
reg [9:0] d;
integer i;
always @(*) begin
    r = 8'd0;
    for (i = 15; i >= 0; i = i - 1) begin
        t = {r, A[i]};
        d = {1'b0, t} - {2'b0, B};
        q[i] = ~d[9];
        r = d[9] ? t[7:0] : d[7:0];
    end
end
assign result = q;
assign odd = {(B == 8'd0) ? A[15:8] : 8'd0, r};
endmodule
