// Reference for popcount16: number of 1 bits in a 16-bit word.
module popcount16 (
    input      [15:0] x,
    output reg [4:0]  count
);
    integer i;

    always @* begin
        count = 5'd0;
        for (i = 0; i < 16; i = i + 1)
            if (x[i])
                count = count + 5'd1;
    end
endmodule
