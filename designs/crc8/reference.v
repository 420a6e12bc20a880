// Reference for crc8: xor the byte in, then eight shift/reduce steps unrolled by the loop.
module crc8 (
    input            clk,
    input            rst,
    input            en,
    input      [7:0] data,
    output reg [7:0] crc
);
    function [7:0] next_crc(input [7:0] c, input [7:0] d);
        integer i;
        reg [7:0] x;
        begin
            x = c ^ d;
            for (i = 0; i < 8; i = i + 1)
                x = x[7] ? ({x[6:0], 1'b0} ^ 8'h07) : {x[6:0], 1'b0};
            next_crc = x;
        end
    endfunction

    always @(posedge clk) begin
        if (rst)     crc <= 8'h00;
        else if (en) crc <= next_crc(crc, data);
    end
endmodule
