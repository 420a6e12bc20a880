// kind: encoding
// change: the five binary-coded states are 'which prefix of 2,0,3,1 was just seen', so they become four history flags (last key 2, last 2-0, last 2-0-3, last 2-0-3-1), each set by one AND of the previous flag and a key decode, and hit is the last flag: no state decoder and each next state one gate. Synthesis keeps the binary code.
module sym_detect (
    input        clk,
    input        rst,
    input  [1:0] key,
    output       hit
);
    reg a, b, c, d;
    always @(posedge clk)
        if (rst) {a, b, c, d} <= 4'b0;
        else begin
            a <= key == 2'd2;
            b <= a & (key == 2'd0);
            c <= b & (key == 2'd3);
            d <= c & (key == 2'd1);
        end
    assign hit = d;
endmodule
