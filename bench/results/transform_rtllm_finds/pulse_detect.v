module pulse_detect(    
    input clk,
    input rst_n,
    input data_in,
    output reg data_out
);
    parameter s0 = 2'b00;
    parameter s1 = 2'b01;
    parameter s2 = 2'b10;
    parameter s3 = 2'b11;
    // resynth: 4 reachable states of 3 flip-flop bits, 3 after merging; gray code
    reg [1:0] rtla_s;
    wire [0:0] rtla_v = {data_in};
    reg [0:0] rtla_o;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) rtla_s <= 2'd0;
        else case (rtla_s)
            2'd0: begin
                case (rtla_v)
                    0: rtla_s <= 2'd1;
                    1: rtla_s <= 2'd0;
                endcase
            end
            2'd1: begin
                case (rtla_v)
                    0: rtla_s <= 2'd1;
                    1: rtla_s <= 2'd3;
                endcase
            end
            2'd3: begin
                case (rtla_v)
                    0: rtla_s <= 2'd1;
                    1: rtla_s <= 2'd0;
                endcase
            end
            default: rtla_s <= 2'd0;
        endcase
    always @* begin
        rtla_o = 1'd0;
        case (rtla_s)
            2'd3: begin
                case (rtla_v)
                    0: rtla_o = 1'd1;
                    1: rtla_o = 1'd0;
                endcase
            end
            default: ;
        endcase
    end
    always @* data_out = rtla_o[0:0];
endmodule
