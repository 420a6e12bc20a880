// Reference for max8: the largest of eight unsigned bytes and where it is, scanned in a loop as one would
// write it in software (the first position wins a tie).
module max8 (
    input      [63:0] data,
    output reg [7:0]  mx,
    output reg [2:0]  idx
);
    integer i;
    always @* begin
        mx = 8'd0;
        idx = 3'd0;
        for (i = 0; i < 8; i = i + 1)
            if (data[8*i +: 8] > mx) begin
                mx = data[8*i +: 8];
                idx = i;
            end
    end
endmodule
