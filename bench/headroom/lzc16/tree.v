// kind: decode
// change: a log-depth leading-zero tree instead of the 16-step priority loop; measured worse (0.73x Nangate45): ABC already flattens the loop into a shallow network, so no headroom here
module lzc16 (
    input      [15:0] d,
    output reg [4:0]  count,
    output            zero
);
    wire [7:0] hi = d[15:8], lo = d[7:0];
    function [3:0] lz8(input [7:0] x);
        reg [3:0] c;
        begin
            if (x[7:4] != 4'd0) c = {2'b00, x[7] ? 2'd0 : x[6] ? 2'd1 : x[5] ? 2'd2 : 2'd3};
            else if (x[3:0] != 4'd0) c = {2'b01, x[3] ? 2'd0 : x[2] ? 2'd1 : x[1] ? 2'd2 : 2'd3};
            else c = 4'd8;
            lz8 = c;
        end
    endfunction
    wire [3:0] ch = lz8(hi), cl = lz8(lo);
    always @* begin
        if (ch != 4'd8) count = {1'b0, ch};
        else count = 5'd8 + {1'b0, cl};
    end
    assign zero = (d == 16'd0);
endmodule
